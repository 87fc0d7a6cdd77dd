use super::*;
use std::os::unix::fs::symlink;

#[test]
fn reads_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let root = SysRoot::open(dir.path()).unwrap();
    assert!(!root.is_live());
    fs::write(dir.path().join("ok"), "42\n").unwrap();
    fs::write(dir.path().join("big"), vec![b'1'; 70_000]).unwrap();
    fs::write(dir.path().join("bin"), [0u8, 1, 2]).unwrap();
    fs::write(dir.path().join("latin1"), [0xe9u8]).unwrap();
    fs::create_dir(dir.path().join("adir")).unwrap();
    symlink("loop2", dir.path().join("loop1")).unwrap();
    symlink("loop1", dir.path().join("loop2")).unwrap();
    symlink("nowhere", dir.path().join("dangling")).unwrap();

    assert_eq!(root.read_text("ok", 100).unwrap().as_deref(), Some("42\n"));
    assert_eq!(root.read_text("missing", 100).unwrap(), None);
    assert_eq!(root.read_text("dangling", 100).unwrap(), None);
    assert!(root.read_text("big", MAX_ATTRIBUTE_BYTES).unwrap_err().what.contains("larger"));
    assert!(root.read_text("bin", 100).unwrap_err().what.contains("binary"));
    assert!(root.read_text("latin1", 100).unwrap_err().what.contains("UTF-8"));
    assert!(root.read_text("adir", 100).unwrap_err().what.contains("directory"));
    assert!(root.read_text("loop1", 100).unwrap_err().what.contains("loop"));
    assert!(root.read_text("ok/below", 100).is_err());
    assert_eq!(root.kind("loop1"), EntryKind::LinkLoop);
    assert_eq!(root.kind("dangling"), EntryKind::DanglingLink);
    assert_eq!(root.kind("adir"), EntryKind::Dir);
    assert_eq!(root.kind("ok"), EntryKind::File);
    assert_eq!(root.kind("nothing"), EntryKind::Missing);
    assert_eq!(root.list_dir("nothing").unwrap(), Vec::<String>::new());

    let mut probe = Probe::new(&root);
    assert_eq!(probe.parsed("ok", super::super::parse::parse_u64), Some(42));
    assert_eq!(probe.parsed("latin1", super::super::parse::parse_u64), None);
    assert_eq!(probe.parsed_lenient("bin", super::super::parse::parse_u64), None);
    assert_eq!(probe.problems.len(), 2);
}

#[test]
fn implausible_values_are_unknown_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let root = SysRoot::open(dir.path()).unwrap();
    fs::write(dir.path().join("num_pstates"), "4294967285\n").unwrap();
    fs::write(dir.path().join("turbo_pct"), "32\n").unwrap();
    fs::write(dir.path().join("garbage"), "x\n").unwrap();
    let mut probe = Probe::new(&root);
    let small = |v: &u64| *v <= 255;
    let parse = super::super::parse::parse_u64;
    assert_eq!(probe.parsed_plausible("num_pstates", parse, small, "no CPU has that many"), None);
    assert_eq!(probe.parsed_plausible("turbo_pct", parse, small, "unused"), Some(32));
    assert_eq!(probe.parsed_plausible("garbage", parse, small, "unused"), None);
    assert_eq!(probe.parsed_plausible("missing", parse, small, "unused"), None);
    assert_eq!(
        probe.ignored,
        vec![IgnoredValue {
            file: "/num_pstates".into(),
            text: "4294967285".into(),
            why: "no CPU has that many".into()
        }]
    );
    // Garbage is still a problem; an impossible number is not.
    assert_eq!(probe.problems.len(), 1);
}

#[test]
fn opening_roots() {
    assert!(matches!(SysRoot::open(Path::new("/nonexistent/gearshift")), Err(RootError::Missing(_))));
    let file = tempfile::NamedTempFile::new().unwrap();
    assert!(matches!(SysRoot::open(file.path()), Err(RootError::NotDirectory(_))));
    assert!(SysRoot::open(Path::new("/")).unwrap().is_live());
}
