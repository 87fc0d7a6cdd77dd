use super::*;
use crate::core::identity::CpuIdentity;

fn cpu(vendor: Vendor, family: u32, model: u32) -> CpuIdentity {
    let mut id = CpuIdentity::unknown();
    id.vendor = vendor;
    id.family = Some(family);
    id.model = Some(model);
    id
}

fn values(performance: u8, balance_performance: u8, balance_power: u8, power: u8) -> EppValues {
    EppValues { performance, balance_performance, balance_power, power }
}

/// Every row of the kernel's own model tables (intel_pstate's and amd-pstate's), and the generic rows.
#[test]
fn every_kernel_row_resolves_to_its_values() {
    let table = ModelTable::builtin();
    let cases = [
        (0x9A, "Alder Lake", values(0, 102, 192, 255), "5.17"),
        (0x8F, "Sapphire Rapids", values(0, 32, 192, 255), "6.3"),
        (0xCF, "Emerald Rapids", values(0, 32, 192, 255), "6.11"),
        (0xAD, "Granite Rapids", values(0, 32, 192, 255), "6.13"),
        (0xAE, "Granite Rapids", values(0, 32, 192, 255), "6.13"),
        (0xAA, "Meteor Lake", values(16, 64, 179, 255), "6.11"),
        (0xC6, "Arrow Lake", values(16, 64, 179, 255), "6.11"),
    ];
    for (model, codename, epp, kernel) in cases {
        let m = table.lookup(&cpu(Vendor::Intel, 6, model)).unwrap();
        assert_eq!(m.codename.as_deref(), Some(codename), "model {model:#x}");
        assert_eq!(m.epp, epp, "model {model:#x}");
        assert!(m.model_specific);
        assert_eq!(m.since_kernel, Some(parse_kernel_version(kernel).unwrap()));
        assert!(m.source.contains("intel_pstate.c"));
    }
    // Raptor Lake, Lunar Lake, Arrow Lake H and U, Skylake: generic.
    for model in [0xB7, 0xBA, 0xBF, 0xBD, 0xC5, 0xB5, 0x4E, 0x5E] {
        let m = table.lookup(&cpu(Vendor::Intel, 6, model)).unwrap();
        assert_eq!(m.epp, values(0, 128, 192, 255), "model {model:#x}");
        assert!(!m.model_specific);
        assert!(m.codename.is_some());
    }
    // A model nobody named yet.
    let unknown = table.lookup(&cpu(Vendor::Intel, 6, 0x01)).unwrap();
    assert_eq!((unknown.codename, unknown.epp), (None, values(0, 128, 192, 255)));
    // AMD: generic 0/128/191/255, named or not.
    let phoenix = table.lookup(&cpu(Vendor::Amd, 0x19, 0x74)).unwrap();
    assert_eq!(phoenix.codename.as_deref(), Some("Zen 4 (Phoenix)"));
    assert_eq!(phoenix.epp, values(0, 128, 191, 255));
    assert_eq!(table.lookup(&cpu(Vendor::Amd, 0x30, 0x01)).unwrap().epp, values(0, 128, 191, 255));
    assert!(table.lookup(&cpu(Vendor::Other, 6, 0xAA)).is_none());
}

#[test]
fn what_each_kernel_uses() {
    let table = ModelTable::builtin();
    let mtl = table.lookup(&cpu(Vendor::Intel, 6, 0xAA)).unwrap();
    let k = |s: &str| Some(parse_kernel_version(s).unwrap());
    assert_eq!(mtl.kernel_values(k("6.8")), Some(values(0, 128, 192, 255)));
    assert_eq!(mtl.kernel_values(k("6.9")), Some(values(16, 115, 192, 255)));
    assert_eq!(mtl.kernel_values(k("6.10.3")), Some(values(16, 115, 192, 255)));
    assert_eq!(mtl.kernel_values(k("6.11")), Some(values(16, 64, 179, 255)));
    assert_eq!(mtl.kernel_knows_model(k("6.8")), Some(false));
    assert_eq!(mtl.kernel_knows_model(k("6.12")), Some(true));
    assert_eq!(mtl.kernel_values(None), None);
    // Generic values do not depend on the kernel: a snapshot without
    // its kernel's release still knows what the names mean.
    let rpl = table.lookup(&cpu(Vendor::Intel, 6, 0xBA)).unwrap();
    assert_eq!(rpl.kernel_values(None), Some(values(0, 128, 192, 255)));
    let unknown_amd = table.lookup(&CpuIdentity { vendor: Vendor::Amd, ..CpuIdentity::unknown() }).unwrap();
    assert_eq!(unknown_amd.kernel_values(None), Some(values(0, 128, 191, 255)));
    let emr = table.lookup(&cpu(Vendor::Intel, 6, 0xCF)).unwrap();
    assert_eq!(emr.kernel_values(k("6.8")).unwrap().balance_performance, 128);
    assert_eq!(emr.kernel_values(k("6.11")).unwrap().balance_performance, 32);
    assert_eq!(values(16, 64, 179, 255).name_of(64), Some(EppName::BalancePerformance));
    assert_eq!(values(16, 64, 179, 255).name_of(65), None);
}

#[test]
fn overrides_replace_rows_and_bad_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let over = dir.path().join(OVERRIDE_DIR);
    std::fs::create_dir_all(&over).unwrap();
    std::fs::write(
            over.join("10-raptor.toml"),
            "[[model]]\nvendor = \"intel\"\nfamily = 6\nmodel = 0xBA\ncodename = \"Raptor Lake (tuned)\"\n\
             epp = { performance = 0, balance_performance = 80, balance_power = 180, power = 255 }\nsource = \"local measurement\"\n",
        )
        .unwrap();
    std::fs::write(over.join("20-bad.toml"), "[[model]]\nvendor = \"intel\"\nfamily = 6\nmodel = 0xBA\n").unwrap();
    std::fs::write(
        over.join("30-range.toml"),
        "[[model]]\nvendor = \"intel\"\nfamily = 6\nmodel = 0xB7\ncodename = \"x\"\nsource = \"s\"\n\
             epp = { performance = 0, balance_performance = 300, balance_power = 180, power = 255 }\n",
    )
    .unwrap();
    std::fs::write(over.join("notes.txt"), "ignored").unwrap();
    let root = SysRoot::open(dir.path()).unwrap();
    let (table, problems) = ModelTable::load(&root);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].path.ends_with("20-bad.toml"));
    assert!(problems[0].what.contains("codename"), "{}", problems[0].what);
    assert!(problems[1].path.ends_with("30-range.toml"));
    let m = table.lookup(&cpu(Vendor::Intel, 6, 0xBA)).unwrap();
    assert_eq!(m.codename.as_deref(), Some("Raptor Lake (tuned)"));
    assert_eq!(m.epp.balance_performance, 80);
    assert!(matches!(m.origin, RowOrigin::Override(_)));
    // The untouched rows are still there.
    assert_eq!(table.lookup(&cpu(Vendor::Intel, 6, 0xAA)).unwrap().epp.balance_performance, 64);
}

#[test]
fn bad_rows_name_the_field() {
    let base = ModelTable::builtin();
    let origin = RowOrigin::Override("x.toml".into());
    let bad = |text: &str| parse_table(text, &origin, Some(&base)).unwrap_err().what;
    assert!(bad("[[model]]\nvendor=\"via\"\nfamily=6\nmodel=1\ncodename=\"c\"\nsource=\"s\"\n").contains("vendor"));
    assert!(bad("[[model]]\nvendor=\"intel\"\nfamily=6\nmodel=256\ncodename=\"c\"\nsource=\"s\"\n").contains("model"));
    assert!(bad("[[model]]\nvendor=\"intel\"\nfamily=6\nmodel=1\ncodename=\"\"\nsource=\"s\"\n").contains("codename"));
    assert!(bad("[[model]]\nvendor=\"intel\"\nfamily=6\nmodel=1\ncodename=\"c\"\nsource=\"s\"\nkernel=\"6.1\"\n")
        .contains("epp"));
    assert!(bad("[[model]]\nvendor=\"intel\"\nfamily=6\nmodel=1\ncodename=\"c\"\nsource=\"s\"\nkernel=\"x\"\n")
        .contains("kernel"));
    assert!(bad("[[model]]\nvendor=\"intel\"\nfamily=6\nmodel=1\ncodename=\"c\"\nsource=\"s\"\ncolour=1\n")
        .contains("colour"));
    let generic = "epp={performance=0,balance_performance=1,balance_power=2,power=3}\nsource=\"s\"\n";
    assert!(bad(&format!("[generic.intel]\n{generic}[generic.amd]\n{generic}")).contains("generic"));
}
