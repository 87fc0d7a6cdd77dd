//! `gearshift metrics` as Prometheus takes it: the text parsed by the
//! official Python client's parser (Debian's python3-prometheus-client),
//! and read by a real node_exporter (Debian's prometheus-node-exporter)
//! from its textfile directory, scraped over 127.0.0.1, with the real
//! helper on a private bus behind the command (the active profile, the
//! changes set back).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::bus::{cli, Bus, Helper};
use common::stderr;

/// The metrics' families as the Python client parses them: one line per
/// sample, `name{labels} value`, labels sorted.
fn parsed(file: &Path) -> Vec<String> {
    let script = r##"
import sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    print(f"# {family.name} {family.type}")
    for s in family.samples:
        labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
        print(f"{s.name}{{{labels}}} {s.value}")
"##;
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(file)
        .output()
        .expect("python3 (package python3-prometheus-client)");
    assert!(out.status.success(), "the parser refused the metrics: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

/// A kept measurement (root's, in the system's directory).
fn keep_measurement(root: &Path) {
    let dir = root.join("var/lib/gearshift/measurements");
    std::fs::create_dir_all(&dir).unwrap();
    let kept = serde_json::json!({
        "time": 1_764_600_000u64, "kernel": "6.8.0", "cpu": "Meteor Lake",
        "report": {"workload": "build", "repeats": 3, "energy_source": "psys", "method": "pocock",
            "runs": [{"profile": "power", "epp": 255, "throughput": 300.0, "unit": "MB/s", "seconds": 20.0,
                      "joules": 150.0, "watts": 7.5, "ppw": 40.0, "ppw_spread": 1.0, "vs_kernel_default_pct": null}],
            "best": null, "restored": "balance_power"}
    });
    std::fs::write(dir.join("1764600000-build.json"), kept.to_string()).unwrap();
}

#[test]
fn the_metrics_parse_and_say_what_the_helper_and_the_model_say() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    keep_measurement(helper.root.path());
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("gearshift.prom");
    let root = helper.root.path().to_str().unwrap().to_owned();
    let out = cli(&bus, None, &["--root", &root, "metrics", "--output", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Written whole: nothing but the file is left in the directory.
    let left: Vec<_> = std::fs::read_dir(out_dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["gearshift.prom"]);
    let samples = parsed(&file);
    let has = |line: &str| samples.iter().any(|s| s == line);
    for family in [
        "# gearshift_info gauge",
        "# gearshift_cpu_energy_performance_preference gauge",
        "# gearshift_profile gauge",
        "# gearshift_profile_energy_performance_preference gauge",
        "# gearshift_platform_profile gauge",
        "# gearshift_changed_outside counter",
        "# gearshift_measurement_work_per_joule gauge",
        "# gearshift_measurement_timestamp_seconds gauge",
    ] {
        assert!(has(family), "no {family}: {samples:#?}");
    }
    assert!(samples.iter().any(|s| s.starts_with("gearshift_info{codename=Meteor Lake,driver=intel_pstate,family=6,")));
    // Efficient (179) on every CPU, as the helper applied it.
    let epp: Vec<&String> =
        samples.iter().filter(|s| s.starts_with("gearshift_cpu_energy_performance_preference{")).collect();
    assert_eq!(epp.len(), 22, "{epp:?}");
    assert!(epp.iter().all(|s| s.ends_with(" 179.0")), "{epp:?}");
    assert!(has("gearshift_profile{profile=balance_power} 1.0") && has("gearshift_profile{profile=power} 0.0"));
    // The gap a fleet wants to see: the model's 64 against the kernel's 128.
    assert!(has("gearshift_profile_energy_performance_preference{profile=balance_performance,source=model} 64.0"));
    assert!(has("gearshift_profile_energy_performance_preference{profile=balance_performance,source=kernel} 128.0"));
    assert!(has("gearshift_platform_profile{profile=balanced} 1.0"), "{samples:#?}");
    assert!(has("gearshift_measurement_work_per_joule{profile=power,workload=build} 40.0"));
    assert!(has("gearshift_measurement_timestamp_seconds{workload=build} 1764600000.0"), "{samples:#?}");
}

/// A machine on a profile its administrator declared: `gearshift_profile`
/// has a series for it, and it is the one at 1; the status lists it with
/// the file that declares it, and names it active.
#[test]
fn a_declared_profile_in_effect_is_the_one_active_profile() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let fleet = helper.root.path().join("etc/gearshift/conf.d/50-render.toml");
    std::fs::create_dir_all(fleet.parent().unwrap()).unwrap();
    std::fs::write(
        &fleet,
        "default_profile = \"render\"\n[[profile]]\nid = \"render\"\nname = \"Render farm\"\nepp = 32\n",
    )
    .unwrap();
    helper.spawn(&bus);
    common::bus::wait_for(|| helper.policy(0, "energy_performance_preference") == "32", "render's EPP 32");
    let root = helper.root.path().to_str().unwrap().to_owned();
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("gearshift.prom");
    let out = cli(&bus, None, &["--root", &root, "metrics", "--output", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = parsed(&file);
    let profile_series: Vec<&String> = samples.iter().filter(|s| s.starts_with("gearshift_profile{")).collect();
    assert!(samples.iter().any(|s| s == "gearshift_profile{profile=render} 1.0"), "{profile_series:#?}");
    let ones = profile_series.iter().filter(|s| s.ends_with(" 1.0")).count();
    assert_eq!((ones, profile_series.len()), (1, 5), "{profile_series:#?}");
    let status: serde_json::Value =
        serde_json::from_slice(&cli(&bus, None, &["--root", &root, "status", "--json"]).stdout).unwrap();
    assert_eq!(status["active_profile"], "render", "{}", status["active_profile"]);
    assert_eq!(status["active_profile_source"], "helper");
    let render = status["profiles"].as_array().unwrap().iter().find(|p| p["id"] == "render").expect("render is listed");
    assert_eq!((render["epp"].as_u64(), render["builtin"].as_bool()), (Some(32), Some(false)), "{render}");
    assert!(render["declared_in"].as_str().unwrap().ends_with("conf.d/50-render.toml"), "{render}");
    let text = common::stdout(&cli(&bus, None, &["--root", &root, "status"]));
    assert!(text.contains("render is declared by your administrator in") && text.contains("50-render.toml"), "{text}");
    // `profile show` says what it sets, where it comes from, and that it is in use.
    let shown = common::stdout(&cli(&bus, None, &["--root", &root, "profile", "show", "Render farm"]));
    for line in ["Render farm (render)\nEPP     32\n", "declared by your administrator in", "In use  yes"] {
        assert!(shown.contains(line), "no {line:?} in:\n{shown}");
    }
}

/// A free port on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// GET /metrics from node_exporter, once it answers. While it starts, a
/// connection may be refused, or accepted and then reset (seen once, with
/// the machine busy): both mean "not yet".
fn scrape(port: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = TcpStream::connect(("127.0.0.1", port)).and_then(|mut stream| {
            stream.write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
            let mut text = String::new();
            stream.read_to_string(&mut text)?;
            Ok(text)
        });
        match answer {
            Ok(text) => return text,
            Err(err) => assert!(Instant::now() < deadline, "node_exporter never answered on {port}: {err}"),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

struct Exporter(std::process::Child);

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn node_exporter_serves_them_from_its_textfile_directory() {
    let dir = tempfile::tempdir().unwrap();
    // Into the configured textfile directory.
    let root = common::copy_fixture("meteor-lake-155h");
    let config = root.path().join("etc/gearshift/conf.d/10-metrics.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("[metrics]\ntextfile_dir = {:?}\n", dir.path().to_str().unwrap())).unwrap();
    let out = common::gearshift(&["--root", root.path().to_str().unwrap(), "metrics", "--textfile"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("gearshift.prom").exists());
    let port = free_port();
    let _exporter = Exporter(
        std::process::Command::new("prometheus-node-exporter")
            .args(["--collector.disable-defaults", "--collector.textfile"])
            .arg(format!("--collector.textfile.directory={}", dir.path().display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("prometheus-node-exporter (Debian's package)"),
    );
    let text = scrape(port);
    assert!(text.contains("node_textfile_scrape_error 0"), "{text}");
    assert!(
        text.contains(
            "gearshift_profile_energy_performance_preference{profile=\"balance_performance\",source=\"model\"} 64"
        ),
        "{text}"
    );
    assert!(text.contains("gearshift_info{"), "{text}");
}

/// The `Key=` values of a unit file, in order.
fn unit_lines(unit: &str, key: &str) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(unit)).unwrap();
    text.lines().filter_map(|l| l.strip_prefix(key)?.strip_prefix('=')).map(str::to_owned).collect()
}

#[test]
fn the_timers_unit_gathers_unprivileged_and_copies_into_the_textfile_directory() {
    // The unit's own command lines, as systemd runs them: ExecStart= as a
    // user without privileges (DynamicUser=), into its runtime directory;
    // ExecStartPost= with "!" as root, into the textfile directory that
    // gearshift.toml names.
    let start = unit_lines("data/systemd/gearshift-metrics.service.in", "ExecStart");
    let post = unit_lines("data/systemd/gearshift-metrics.service.in", "ExecStartPost");
    assert_eq!((start.len(), post.len()), (1, 1), "{start:?} {post:?}");
    let post = post[0].strip_prefix('!').expect("ExecStartPost= runs as root without the change of user ('!')");
    assert!(unit_lines("data/systemd/gearshift-metrics.service.in", "DynamicUser") == ["yes"]);
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let textfiles = tempfile::tempdir().unwrap();
    let root = helper.root.path().to_str().unwrap().to_owned();
    let config = helper.root.path().join("etc/gearshift/gearshift.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("[metrics]\ntextfile_dir = {:?}\n", textfiles.path().to_str().unwrap())).unwrap();
    let (_keep, nobody_bin) = common::bus::binary_for_nobody();
    let runtime = tempfile::tempdir().unwrap();
    std::process::Command::new("chown").arg("65534:65534").arg(runtime.path()).status().unwrap();
    // "@bindir@/gearshift metrics ..." with the snapshot's --root.
    let words = |line: &str, bin: &Path| -> Vec<String> {
        let line = line.replace("${RUNTIME_DIRECTORY}", runtime.path().to_str().unwrap());
        let mut words = line.split_whitespace().map(str::to_owned);
        assert_eq!(words.next().as_deref(), Some("@bindir@/gearshift"), "{line}");
        [bin.to_str().unwrap().to_owned(), "--root".into(), root.clone()].into_iter().chain(words).collect()
    };
    let gather = words(&start[0], &nobody_bin);
    let out = bus
        .command("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(&gather)
        .output()
        .unwrap();
    assert!(out.status.success(), "{gather:?}: {}", stderr(&out));
    let gathered = std::fs::read_to_string(runtime.path().join("gearshift.prom")).unwrap();
    // The helper's counters reached the unprivileged run over the bus.
    assert!(gathered.contains("# TYPE gearshift_changed_outside_total counter"), "{gathered}");
    let copy = words(post, Path::new(env!("CARGO_BIN_EXE_gearshift")));
    let out = bus.command(&copy[0]).args(&copy[1..]).output().unwrap();
    assert!(out.status.success(), "{copy:?}: {}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(textfiles.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["gearshift.prom"]);
    assert_eq!(std::fs::read_to_string(textfiles.path().join("gearshift.prom")).unwrap(), gathered);
}

/// `gearshift --root ROOT metrics --textfile --from FROM` as root, as the
/// timer's second step runs it: its output, and what the textfile
/// directory holds after.
fn copy_as_root(root: &Path, from: &Path, textfiles: &Path) -> (std::process::Output, Vec<std::ffi::OsString>) {
    let started = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gearshift"))
        .arg("--root")
        .arg(root)
        .args(["metrics", "--textfile", "--from"])
        .arg(from)
        .env("LC_ALL", "C.UTF-8")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("gearshift metrics --from {} hung", from.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let left = std::fs::read_dir(textfiles).unwrap().flatten().map(|e| e.file_name()).collect();
    (out, left)
}

#[test]
fn the_copy_as_root_takes_nothing_from_the_unprivileged_step_but_its_metrics() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let root = common::copy_fixture("meteor-lake-155h");
    let textfiles = tempfile::tempdir().unwrap();
    let config = root.path().join("etc/gearshift/gearshift.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("[metrics]\ntextfile_dir = {:?}\n", textfiles.path().to_str().unwrap())).unwrap();
    // The runtime directory systemd makes for the unprivileged step.
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let chown = |path: &Path| {
        assert!(std::process::Command::new("chown").arg("-h").arg("65534:65534").arg(path).status().unwrap().success());
    };
    chown(runtime.path());
    let from = runtime.path().join("gearshift.prom");
    let refused = |what: &str, from: &Path, says: &str| {
        let (out, left) = copy_as_root(root.path(), from, textfiles.path());
        assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{what}: {}", stderr(&out));
        assert!(left.is_empty(), "{what}: {left:?} left in the textfile directory");
    };
    // A link to a file only root may read.
    symlink("/etc/shadow", &from).unwrap();
    chown(&from);
    refused("a link to /etc/shadow", &from, "symbolic link");
    std::fs::remove_file(&from).unwrap();
    // What never ends, and what never answers.
    refused("/dev/zero", Path::new("/dev/zero"), "not a plain file");
    let c_path = std::ffi::CString::new(from.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    chown(&from);
    refused("a FIFO", &from, "not a plain file");
    std::fs::remove_file(&from).unwrap();
    // Something else than metrics, and too much of them.
    std::fs::write(&from, "root:$6$salt$hash:19000:0:99999:7:::\n").unwrap();
    chown(&from);
    refused("a copy of /etc/shadow", &from, "line 1 is not a gearshift_ series");
    std::fs::write(&from, "gearshift_x 1\n".repeat(100_000)).unwrap();
    chown(&from);
    refused("1.4 MB", &from, "more than 1048576");
    // Another user's file in a directory that user does not own.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let foreign = elsewhere.path().join("gearshift.prom");
    std::fs::write(&foreign, "gearshift_x 1\n").unwrap();
    chown(&foreign);
    refused("uid 65534's file in root's directory", &foreign, "neither root nor the owner of its directory");
    // The real thing passes.
    std::fs::write(&from, "# TYPE gearshift_x gauge\ngearshift_x{cpu=\"0\"} 1\n").unwrap();
    chown(&from);
    let (out, left) = copy_as_root(root.path(), &from, textfiles.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(left, ["gearshift.prom"]);
    // A textfile directory anyone may write: root does not write there.
    std::fs::remove_file(textfiles.path().join("gearshift.prom")).unwrap();
    std::fs::set_permissions(textfiles.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let (out, left) = copy_as_root(root.path(), &from, textfiles.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("may be written by anyone"), "{}", stderr(&out));
    assert!(left.is_empty(), "{left:?}");
    // (A link planted under the temporary name: src/cli/textfile.rs's own test.)
}
