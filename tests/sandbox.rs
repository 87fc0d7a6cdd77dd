//! The helper stays inside the sandbox its systemd unit draws: every system
//! call it makes through a full session (switching, custom profiles,
//! refusals, energy, state saving, shutdown) is allowed by the unit's
//! `SystemCallFilter=`, and every socket it opens is of a family that
//! `RestrictAddressFamilies=` lets through. systemd itself is not running
//! here, so this is how we know the hardened unit does not break the helper:
//! a call outside the filter would fail with EPERM there.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::bus::{Bus, Helper};
use gearshift::dbus::Helper1Proxy;

const UNIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/systemd/gearshift-helper.service.in");

/// The values of every `Key=` line of the unit, in order.
fn unit_values(key: &str) -> Vec<String> {
    let text = std::fs::read_to_string(UNIT).unwrap();
    text.lines().filter_map(|l| l.strip_prefix(key)?.strip_prefix('=')).map(str::to_owned).collect()
}

/// The system calls in a set (`@group` or a name), with nested groups
/// expanded, as this machine's systemd defines them.
fn expand(item: &str, out: &mut BTreeSet<String>) {
    if !item.starts_with('@') {
        out.insert(item.to_owned());
        return;
    }
    let listing = Command::new("systemd-analyze")
        .args(["syscall-filter", item])
        .output()
        .expect("systemd-analyze (package systemd)");
    assert!(listing.status.success(), "systemd-analyze syscall-filter {item} failed");
    for line in String::from_utf8_lossy(&listing.stdout).lines().skip(1) {
        let entry = line.trim();
        if entry.is_empty() || entry.starts_with('#') {
            continue;
        }
        expand(entry, out);
    }
}

/// What the unit allows: the allow list minus everything a `~` line denies
/// (systemd applies them in this order).
fn allowed_syscalls() -> BTreeSet<String> {
    let mut allowed = BTreeSet::new();
    let mut denied = BTreeSet::new();
    for value in unit_values("SystemCallFilter") {
        let (deny, list) = match value.strip_prefix('~') {
            Some(rest) => (true, rest),
            None => (false, value.as_str()),
        };
        for item in list.split_whitespace() {
            expand(item, if deny { &mut denied } else { &mut allowed });
        }
    }
    assert!(allowed.len() > 100, "the unit's allow list expanded to only {} calls", allowed.len());
    assert!(denied.contains("reboot") && denied.contains("ptrace"), "the deny list did not expand");
    &allowed - &denied
}

/// System call names and socket families in an `strace -f` log.
fn traced(log: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut calls = BTreeSet::new();
    let mut families = BTreeSet::new();
    for line in log.lines() {
        // "1234  name(args..." or "1234  <... name resumed>..."
        let rest = line.split_once(char::is_whitespace).map_or(line, |(_, r)| r).trim_start();
        let name = match rest.strip_prefix("<... ") {
            Some(resumed) => resumed.split_whitespace().next().unwrap_or(""),
            None => rest.split('(').next().unwrap_or(""),
        };
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            calls.insert(name.to_owned());
        }
        if let Some(args) = rest.strip_prefix("socket(") {
            families.insert(args.split(',').next().unwrap_or("").to_owned());
        }
    }
    (calls, families)
}

#[test]
fn the_helper_stays_inside_its_units_system_call_filter_and_socket_families() {
    let bus = Bus::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("strace.log");
    let mut helper =
        Helper::start_wrapped(&bus, "meteor-lake-155h", &["strace", "-f", "-qq", "-o", log.to_str().unwrap()]);
    // The fixture's RAPL zones have no counter values yet.
    for (zone, value) in [("intel-rapl:0", "1000"), ("intel-rapl:0:0", "500")] {
        std::fs::write(helper.root.path().join(format!("sys/class/powercap/{zone}/energy_uj")), value).unwrap();
    }
    {
        let (runtime, connection) = bus.connect();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        runtime.block_on(proxy.set_profile("balance_power")).unwrap();
        runtime.block_on(proxy.set_profile("performance")).unwrap();
        runtime.block_on(proxy.set_epp(&[0, 1], 100)).unwrap();
        runtime.block_on(proxy.set_governor(&[2], "performance")).unwrap();
        assert!(runtime.block_on(proxy.set_epp(&[0], 256)).is_err());
        let profile = "[[profile]]\nid = \"quiet\"\nname = \"Quiet\"\nepp = 200\n";
        runtime.block_on(proxy.save_custom_profile(&common::bus::wire(profile))).unwrap();
        runtime.block_on(proxy.set_profile("quiet")).unwrap();
        // The active profile cannot be deleted: switch away first.
        runtime.block_on(proxy.set_profile("balance_power")).unwrap();
        runtime.block_on(proxy.delete_custom_profile("quiet")).unwrap();
        runtime.block_on(proxy.get_state()).unwrap();
        runtime.block_on(proxy.conflicts()).unwrap();
        runtime.block_on(proxy.read_energy()).unwrap();
        runtime.block_on(proxy.set_auto_policy("balance_performance", "power")).unwrap();
        runtime.block_on(proxy.disable_auto_policy()).unwrap();
        // The state is saved in the background: wait for it.
        let state = helper.state.path().join("state/state.toml");
        common::bus::wait_for(
            || std::fs::read_to_string(&state).is_ok_and(|t| t.contains("enabled = false")),
            "the saved state",
        );
        // Once changes settle, the helper gives memory back (madvise and
        // malloc_trim, src/helper/memory.rs): inside the filter too.
        common::bus::wait_for(
            || std::fs::read_to_string(&log).is_ok_and(|t| t.contains("MADV_DONTNEED")),
            "the memory given back after the changes settled",
        );
        // And runs on, its code and constants mapped back from the file.
        runtime.block_on(proxy.set_profile("performance")).unwrap();
        let epp = helper.root.path().join("sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference");
        assert_eq!(std::fs::read_to_string(&epp).unwrap().trim(), "16", "Performance after the pages came back");
    }
    helper.stop();
    let trace = std::fs::read_to_string(&log).unwrap();
    // The helper may be linked with glibc statically (build-aux/build-helper,
    // GEARSHIFT_HELPER_LINK=static), where a name lookup through NSS would
    // load libraries of another glibc: it must never look up a user, a
    // group or a host.
    for name in ["/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "libnss_", "/etc/hosts"] {
        let opened = trace.lines().find(|l| l.contains("open") && l.contains(name));
        assert!(opened.is_none(), "the helper looked up names through NSS: {opened:?}");
    }
    let (calls, families) = traced(&trace);
    assert!(calls.contains("pwrite64") || calls.contains("write"), "the trace holds no writes: {calls:?}");
    assert!(calls.contains("sendmsg"), "the trace holds no D-Bus traffic: {calls:?}");

    let allowed = allowed_syscalls();
    // The dynamic loader and the exec itself happen before the filter
    // applies (systemd installs it just before exec; execve is allowed).
    let outside: Vec<&String> = calls.iter().filter(|c| !allowed.contains(*c)).collect();
    assert!(outside.is_empty(), "the helper made system calls its unit forbids: {outside:?}");

    let permitted: Vec<String> = unit_values("RestrictAddressFamilies")
        .iter()
        .flat_map(|v| v.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert!(!families.is_empty(), "the trace shows no socket()");
    for family in &families {
        assert!(permitted.contains(family), "the helper opened an {family} socket; the unit allows {permitted:?}");
    }
}

/// The unit's file sandbox, rebuilt from the unit's own lines in a private
/// mount namespace (systemd is not PID 1 here, and systemd-nspawn would need
/// it too to run the unit): the machine's tree (the snapshot root standing
/// for `/`) read-only as `ProtectSystem=strict` and `ProtectKernelTunables=`
/// make it, but for each of the unit's `ReadWritePaths=` below the root;
/// the state directory writable (`StateDirectory=`). A `-` path that is
/// not there is left out, as systemd does; any other must be there.
fn sandbox(helper: &mut Helper) {
    let root = helper.root.path().canonicalize().unwrap();
    let root_text = root.to_str().unwrap().to_owned();
    let mut script = format!("set -e\nR='{root_text}'\nmount --bind \"$R\" \"$R\"\nmount -o remount,bind,ro \"$R\"\n");
    for value in unit_values("ReadWritePaths") {
        for path in value.split_whitespace() {
            let optional = path.starts_with('-');
            let path = path.trim_start_matches(['-', '+']);
            let below = root.join(path.trim_start_matches('/'));
            if !below.exists() {
                assert!(
                    optional,
                    "the unit's ReadWritePaths={path} is not on this machine: systemd would not start it"
                );
                continue;
            }
            script
                .push_str(&format!("mount --bind \"$R{path}\" \"$R{path}\"\nmount -o remount,bind,rw \"$R{path}\"\n"));
        }
    }
    // The sandbox is real: what no ReadWritePaths= names cannot be written.
    script.push_str(
        "if sh -c 'echo 6.99 > \"$R/proc/sys/kernel/osrelease\"' 2>/dev/null; then echo 'the tree is writable' >&2; exit 99; fi\n",
    );
    script.push_str("exec \"$@\"\n");
    helper.wrapper = ["unshare", "-m", "--propagation", "private", "sh", "-c", script.as_str(), "sandbox"]
        .map(str::to_owned)
        .to_vec();
}

#[test]
fn the_units_sandbox_lets_the_helper_switch_laptops_with_firmware_profiles_and_chargers() {
    let bus = Bus::start();
    // (fixture, the file to look at, what it holds after Power Saver, after Balanced)
    let cases = [
        // A ThinkPad: the legacy platform profile.
        ("meteor-lake-155h", "sys/firmware/acpi/platform_profile", "low-power", "balanced"),
        // ASUS with amd-pmf: one class device per driver, below the drivers' devices.
        ("amd-hx370-platform-class", "sys/class/platform-profile/platform-profile-0/profile", "quiet", "balanced"),
        ("amd-hx370-platform-class", "sys/class/platform-profile/platform-profile-1/profile", "low-power", "balanced"),
        // An iPhone charging from the laptop: its charge type (trickle_charge).
        // power-profiles-daemon 0.30's rule asks for Standard in Balanced,
        // which apple-mfi-fastcharge refuses (EINVAL: it does only Trickle
        // and Fast), as the kernel emulator answers since it models charge
        // types: the phone stays at Trickle, and no write met a read-only file.
        ("alder-lake-1260p-iphone", "sys/class/power_supply/apple_mfi_fastcharge/charge_type", "Trickle", "Trickle"),
    ];
    for (fixture, file, saver, balanced) in cases {
        let mut helper = Helper::prepare(fixture);
        helper.on_kernel_emulator();
        sandbox(&mut helper);
        helper.spawn(&bus);
        let (runtime, connection) = bus.connect();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        let shown = || helper.read(file).trim().to_owned();
        let summary = runtime.block_on(proxy.set_profile("power"));
        assert!(summary.is_ok(), "{fixture}: Power Saver in the sandbox: {summary:?}\n{}", helper.log_text());
        assert_eq!(shown(), saver, "{fixture}: {file}\n{}", helper.log_text());
        runtime.block_on(proxy.set_profile("balance_performance")).unwrap();
        assert_eq!(shown(), balanced, "{fixture}: {file}");
        assert!(!helper.log_text().contains("Read-only file system"), "{fixture}: {}", helper.log_text());
        drop(proxy);
        drop(connection);
        helper.stop();
    }
}
