//! A private system bus with the real dbus-daemon and polkitd, and the
//! helper on a copy of a fixture (see docs/testing.md).
//!
//! These tests need root (polkitd drops to its own user, and the project's
//! polkit actions must be installed in /usr/share/polkit-1/actions, the only
//! place polkitd reads). `./build-aux/test` runs them as root.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{copy_fixture, stderr};

/// Where polkitd reads actions.
const ACTIONS: &str = "/usr/share/polkit-1/actions/io.github.gearshift.policy";

/// The lock that the test processes share while the actions file must stay
/// (build-aux/run-tests runs test binaries side by side).
const ACTIONS_LOCK: &str = "/run/gearshift-tests-polkit-actions.lock";

/// This process's shared lock on [`ACTIONS_LOCK`], and how many of its tests
/// hold a [`PolicyGuard`].
static POLICY_USERS: Mutex<Option<(fs::File, usize)>> = Mutex::new(None);

/// Takes `operation` (LOCK_SH or LOCK_EX) on the lock, waiting at most two
/// minutes: a lock held longer is a test process gone astray, said rather
/// than hung on.
fn lock(file: &fs::File, operation: libc::c_int) {
    let since = Instant::now();
    while !try_lock(file, operation) {
        assert!(
            since.elapsed() < Duration::from_secs(120),
            "{ACTIONS_LOCK} stayed locked for two minutes: is a test process stuck? (fuser {ACTIONS_LOCK})"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Takes `operation` on the lock if nobody stands in the way, at once.
fn try_lock(file: &fs::File, operation: libc::c_int) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for as long as `file` lives.
    unsafe { libc::flock(file.as_raw_fd(), operation | libc::LOCK_NB) == 0 }
}

/// Keeps the project's polkit actions installed while any test needs them,
/// in this process or in another. Each process holds a shared lock while its
/// tests need the file, and checks under it that the file is there. The file
/// is written, and removed, only under the exclusive lock, which nobody gets
/// while a process holds the shared one: the last process to leave removes
/// it, and none removes it from under another.
pub struct PolicyGuard;

impl PolicyGuard {
    fn install() -> PolicyGuard {
        let mut users = POLICY_USERS.lock().unwrap_or_else(|e| e.into_inner());
        match users.as_mut() {
            Some((_, count)) => *count += 1,
            None => {
                let file = fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .read(true)
                    .write(true)
                    .open(ACTIONS_LOCK)
                    .unwrap_or_else(|e| panic!("cannot open {ACTIONS_LOCK} (these tests need root): {e}"));
                let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/polkit/io.github.gearshift.policy.in");
                let text = fs::read(&source).unwrap();
                let installed = || fs::read(ACTIONS).ok().as_ref() == Some(&text);
                loop {
                    lock(&file, libc::LOCK_SH);
                    if installed() {
                        break;
                    }
                    // Missing (or another version's): write it alone, then
                    // look again under the shared lock, since a process
                    // leaving may remove it in between.
                    lock(&file, libc::LOCK_UN);
                    lock(&file, libc::LOCK_EX);
                    if !installed() {
                        fs::create_dir_all("/usr/share/polkit-1/actions")
                            .expect("polkit actions directory (run as root)");
                        // Whole or not at all, for a polkitd reading it now.
                        let partial = format!("{ACTIONS}.partial");
                        fs::write(&partial, &text)
                            .and_then(|()| fs::rename(&partial, ACTIONS))
                            .unwrap_or_else(|e| panic!("cannot install {ACTIONS} (these tests need root): {e}"));
                    }
                    lock(&file, libc::LOCK_UN);
                }
                *users = Some((file, 1));
            }
        }
        PolicyGuard
    }
}

impl Drop for PolicyGuard {
    fn drop(&mut self) {
        let mut users = POLICY_USERS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, count)) = users.as_mut() {
            *count -= 1;
            if *count == 0 {
                let (file, _) = users.take().unwrap();
                // Only the last process can take the lock exclusively.
                if try_lock(&file, libc::LOCK_EX) {
                    let _ = fs::remove_file(ACTIONS);
                }
            }
        }
    }
}

fn require_root() {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    assert_eq!(uid, 0, "the bus tests need root: run ./build-aux/test (it uses sudo when needed)");
}

/// A running private system bus with polkitd.
pub struct Bus {
    /// The temporary directory (mode 0755) with the socket and config.
    pub dir: tempfile::TempDir,
    /// `unix:path=...`.
    pub address: String,
    daemon: Child,
    polkitd: Option<Child>,
    _policy: PolicyGuard,
}

impl Bus {
    /// Starts dbus-daemon and polkitd; `extra_policies` are bus policy files
    /// (for mocks) added beside the project's own.
    pub fn start_with(extra_policies: &[(&str, &str)]) -> Bus {
        require_root();
        let policy = PolicyGuard::install();
        let dir = tempfile::Builder::new().prefix("gearshift-bus").tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let system_d = dir.path().join("system.d");
        fs::create_dir(&system_d).unwrap();
        let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/dbus/io.github.gearshift.Helper1.conf");
        fs::copy(project, system_d.join("io.github.gearshift.Helper1.conf")).unwrap();
        for (name, text) in extra_policies {
            fs::write(system_d.join(name), text).unwrap();
        }
        let socket = dir.path().join("system_bus_socket");
        let config = dir.path().join("bus.conf");
        fs::write(&config, bus_config(&socket, &system_d)).unwrap();
        let daemon = super::start_dbus_daemon(
            Command::new("dbus-daemon")
                .arg(format!("--config-file={}", config.display()))
                .arg("--nofork")
                // It warns that it cannot raise its fd limit in a sandbox.
                .stderr(Stdio::null()),
        );
        let address = format!("unix:path={}", socket.display());
        let mut bus = Bus { dir, address, daemon, polkitd: None, _policy: policy };
        bus.polkitd = Some(
            Command::new("/usr/lib/polkit-1/polkitd")
                .arg("--no-debug")
                .env("DBUS_SYSTEM_BUS_ADDRESS", &bus.address)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("polkitd (package polkitd)"),
        );
        bus.wait_for_name("org.freedesktop.PolicyKit1");
        bus
    }

    /// Starts a bus with only the project's policy.
    pub fn start() -> Bus {
        Bus::start_with(&[])
    }

    /// A command with this bus as the system bus.
    /// Its data directory (XDG_DATA_HOME, where measurements are kept) is
    /// the bus's own, never the person's running the tests.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("DBUS_SYSTEM_BUS_ADDRESS", &self.address)
            .env("LC_ALL", "C.UTF-8")
            .env("LANGUAGE", "")
            .env("XDG_DATA_HOME", self.data_home());
        cmd
    }

    /// The XDG_DATA_HOME of the commands run on this bus.
    pub fn data_home(&self) -> std::path::PathBuf {
        self.dir.path().join("data")
    }

    /// True when someone owns `name`.
    pub fn has_owner(&self, name: &str) -> bool {
        let out = self.ask_bus_daemon("NameHasOwner", name);
        String::from_utf8_lossy(&out.stdout).contains("boolean true")
    }

    /// Calls a method of the bus daemon that takes one name.
    fn ask_bus_daemon(&self, method: &str, name: &str) -> Output {
        self.command("dbus-send")
            .args(["--system", "--print-reply=literal", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"])
            .arg(format!("org.freedesktop.DBus.{method}"))
            .arg(format!("string:{name}"))
            .output()
            .expect("dbus-send (package dbus-bin)")
    }

    /// Waits (up to 20 s) until `name` has an owner.
    pub fn wait_for_name(&self, name: &str) {
        wait_for(|| self.has_owner(name), name);
    }

    /// `dbus-send --system --print-reply` to the helper, optionally as another user.
    pub fn dbus_send(&self, as_nobody: bool, method: &str, args: &[&str]) -> Output {
        let mut cmd = if as_nobody {
            let mut c = self.command("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "dbus-send"]);
            c
        } else {
            self.command("dbus-send")
        };
        cmd.args(["--system", "--print-reply", "--dest=io.github.gearshift.Helper1", "/io/github/gearshift/Helper1"])
            .arg(format!("io.github.gearshift.Helper1.{method}"))
            .args(args)
            .output()
            .expect("dbus-send runs")
    }

    /// Kills the bus daemon: every connection on it is lost at once.
    pub fn kill_daemon(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }

    /// The unique name that owns `name` now.
    pub fn owner_of(&self, name: &str) -> String {
        let out = self.ask_bus_daemon("GetNameOwner", name);
        assert!(out.status.success(), "nobody owns {name}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Runs tests/common/forge.py as uid 65534: it sends the signals that
    /// `script` lists (one JSON object a line) straight to `destination`
    /// (a unique name) or, with "", to everyone.
    pub fn forge_as_nobody(&self, destination: &str, script: &str) -> Output {
        let dir = tempfile::Builder::new().prefix("gearshift-forge").tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let program = dir.path().join("forge.py");
        fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/forge.py"), &program).unwrap();
        let lines = dir.path().join("signals.jsonl");
        fs::write(&lines, script).unwrap();
        fs::set_permissions(&program, fs::Permissions::from_mode(0o644)).unwrap();
        fs::set_permissions(&lines, fs::Permissions::from_mode(0o644)).unwrap();
        let out = self
            .command("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"])
            .arg(&program)
            .arg(destination)
            .arg(&lines)
            .output()
            .expect("python3 with python3-dbus");
        assert!(out.status.success(), "forge.py failed: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Has python-dbusmock's logind (started on this bus) announce a
    /// resume: `PrepareForSleep(false)`, as logind sends it after sleep.
    pub fn emit_resume(&self) {
        let out = self
            .command("dbus-send")
            .args(["--system", "--print-reply", "--dest=org.freedesktop.login1", "/org/freedesktop/login1"])
            .args(["org.freedesktop.DBus.Mock.EmitSignal", "string:org.freedesktop.login1.Manager"])
            .args(["string:PrepareForSleep", "string:b", "array:boolean:false"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }

    /// Has python-dbusmock's UPower (started on this bus) change its
    /// `OnBattery` property, which emits PropertiesChanged as UPower does.
    pub fn set_on_battery(&self, on_battery: bool) {
        let out = self
            .command("dbus-send")
            .args(["--system", "--print-reply", "--dest=org.freedesktop.UPower", "/org/freedesktop/UPower"])
            .args(["org.freedesktop.DBus.Properties.Set", "string:org.freedesktop.UPower", "string:OnBattery"])
            .arg(format!("variant:boolean:{on_battery}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }

    /// Has python-dbusmock's UPower (started on this bus) change the
    /// battery level of its display device, as UPower announces it.
    pub fn set_battery_level(&self, percent: f64) {
        let out = self
            .command("dbus-send")
            .args(["--system", "--print-reply", "--dest=org.freedesktop.UPower"])
            .arg("/org/freedesktop/UPower/devices/DisplayDevice")
            .args(["org.freedesktop.DBus.Properties.Set", "string:org.freedesktop.UPower.Device", "string:Percentage"])
            .arg(format!("variant:double:{percent}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }

    /// A blocking zbus connection to this bus.
    pub fn connect(&self) -> (tokio::runtime::Runtime, zbus::Connection) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let address = self.address.clone();
        let connection = runtime.block_on(async move {
            zbus::connection::Builder::address(address.as_str())
                .unwrap()
                .build()
                .await
                .expect("connect to the private bus")
        });
        (runtime, connection)
    }

    /// Sets a property of the PowerProfiles API as `dbus-send` does (the
    /// desktop's power menu, `powerprofilesctl`): `value` in dbus-send's
    /// words (`string:performance`, `boolean:false`).
    pub fn set_panel_property(&self, name: &str, value: &str) -> Output {
        self.command("dbus-send")
            .args(["--system", "--print-reply", "--dest=org.freedesktop.UPower.PowerProfiles"])
            .args(["/org/freedesktop/UPower/PowerProfiles", "org.freedesktop.DBus.Properties.Set"])
            .arg("string:org.freedesktop.UPower.PowerProfiles")
            .arg(format!("string:{name}"))
            .arg(format!("variant:{value}"))
            .output()
            .expect("dbus-send runs")
    }

    /// Saves a custom profile (given as a profiles.toml text) through the
    /// helper, as root, the way any client does.
    pub fn save_custom(&self, toml_text: &str) -> Result<(), gearshift::dbus::HelperError> {
        let (runtime, connection) = self.connect();
        runtime.block_on(async move {
            let proxy = gearshift::dbus::Helper1Proxy::new(&connection).await?;
            proxy.save_custom_profile(&wire(toml_text)).await
        })
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        if let Some(p) = self.polkitd.as_mut() {
            let _ = p.kill();
            let _ = p.wait();
        }
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

fn bus_config(socket: &Path, system_d: &Path) -> String {
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Peer"/>
    <!-- polkitd's own policy names its user, which does not match in this sandbox -->
    <allow own="org.freedesktop.PolicyKit1"/>
    <allow send_destination="org.freedesktop.PolicyKit1"/>
  </policy>
  <includedir>{system_d}</includedir>
</busconfig>
"#,
        socket = socket.display(),
        system_d = system_d.display()
    )
}

/// Polls `ready` every 20 ms for up to 20 s.
pub fn wait_for(mut ready: impl FnMut() -> bool, what: &str) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The helper binary under test: cargo's build of this package, or the one
/// `GEARSHIFT_HELPER_UNDER_TEST` names (the bench and `build-aux/test` point
/// it at the shipped build from `build-aux/build-helper`).
pub fn helper_program() -> std::path::PathBuf {
    std::env::var_os("GEARSHIFT_HELPER_UNDER_TEST")
        .map_or_else(|| env!("CARGO_BIN_EXE_gearshift-helper").into(), std::path::PathBuf::from)
}

/// The helper, serving a copy of a fixture on a [`Bus`].
pub struct Helper {
    /// The copy it reads and writes.
    pub root: tempfile::TempDir,
    /// Its state directory.
    pub state: tempfile::TempDir,
    /// A program to run the helper under (`strace -c ...`), if any.
    pub wrapper: Vec<String>,
    /// Options given to the helper after `--root` and `--state-dir`
    /// (`--block-action NAME`, say).
    pub args: Vec<String>,
    child: Option<Child>,
    log: PathBuf,
    /// The kernel-faithful sysfs serving `root`, when the run asks for it.
    kernel: Option<super::kernelfs::KernelFs>,
    /// Whether it notes what it handled (`GEARSHIFT_HELPER_JOURNAL`).
    journal: bool,
}

/// How sysfs shows the EPP `value` in this run: the kernel (and its
/// emulator) prints the name of a value its table names (255 is `power` on
/// the generic table these fixtures' kernels use), a plain file the number
/// the helper wrote.
pub fn shown_epp(value: u8) -> String {
    let name = match value {
        0 => "performance",
        128 => "balance_performance",
        192 => "balance_power",
        255 => "power",
        _ => return value.to_string(),
    };
    if on_kernelfs() {
        name.to_owned()
    } else {
        value.to_string()
    }
}

/// True when this run serves every helper's root through the kernel-faithful
/// sysfs (`GEARSHIFT_TEST_KERNELFS=1`, which `./build-aux/test` sets for a
/// second run of the bus suites): the same tests, on a substrate that
/// answers like the kernel.
pub fn on_kernelfs() -> bool {
    std::env::var_os("GEARSHIFT_TEST_KERNELFS").is_some_and(|v| v == "1")
}

/// What every start of the helper logs once it has applied (or not) the
/// chosen profile.
const START_LOGGED: &str = "at start";

impl Helper {
    /// Starts the helper on a fresh copy of `fixture`.
    pub fn start(bus: &Bus, fixture: &str) -> Helper {
        Helper::wrapped(bus, fixture, &[], true)
    }

    /// A fresh copy of `fixture` and a state directory, not started yet
    /// (to change either first); [`Helper::spawn`] starts it.
    pub fn prepare(fixture: &str) -> Helper {
        let root = copy_fixture(fixture);
        let state = tempfile::tempdir().unwrap();
        Helper {
            log: state.path().join("helper.log"),
            root,
            state,
            wrapper: Vec::new(),
            args: Vec::new(),
            child: None,
            kernel: None,
            journal: true,
        }
    }

    /// Waits up to `limit` for the process to exit by itself.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                self.child = None;
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// CPU time the process has used, in clock ticks (user + system).
    pub fn cpu_ticks(&self) -> u64 {
        let stat = fs::read_to_string(format!("/proc/{}/stat", self.helper_pid())).unwrap_or_default();
        // After the command name in parentheses: state is field 3, utime 14, stime 15.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        field(14) + field(15)
    }

    /// Starts the helper under a wrapper program (`strace -c -o LOG`).
    pub fn start_wrapped(bus: &Bus, fixture: &str, wrapper: &[&str]) -> Helper {
        Helper::wrapped(bus, fixture, wrapper, true)
    }

    /// Starts the helper under a wrapper program as it ships: without the
    /// tests' journal, whose writes a count of its system calls would
    /// include (the bench).
    pub fn start_as_shipped(bus: &Bus, fixture: &str, wrapper: &[&str]) -> Helper {
        Helper::wrapped(bus, fixture, wrapper, false)
    }

    fn wrapped(bus: &Bus, fixture: &str, wrapper: &[&str], journal: bool) -> Helper {
        let mut helper = Helper::prepare(fixture);
        helper.wrapper = wrapper.iter().map(|s| (*s).to_owned()).collect();
        helper.journal = journal;
        helper.spawn(bus);
        helper
    }

    /// Runs the helper in a network namespace of its own (`unshare --net`),
    /// so that the kernel uevents a test sends with [`Helper::send_uevent`]
    /// reach this helper and no other. Call before [`Helper::spawn`].
    pub fn in_own_network(&mut self) {
        self.wrapper = vec!["unshare".into(), "--net".into(), "--".into()];
    }

    /// Sends a kernel uevent (`ACTION@DEVPATH` with its keys) on the uevent
    /// netlink group of the helper's network namespace, as the kernel does
    /// for CPU hotplug. Only a process with CAP_NET_ADMIN may send there
    /// (the tests run as root); the helper must have been started
    /// [`Helper::in_own_network`].
    pub fn send_uevent(&self, action: &str, devpath: &str, subsystem: &str) {
        assert!(!self.wrapper.is_empty() && self.wrapper[0] == "unshare", "start the helper in_own_network first");
        let message =
            format!("{action}@{devpath}\0ACTION={action}\0DEVPATH={devpath}\0SUBSYSTEM={subsystem}\0SEQNUM=1\0");
        let netns = format!("/proc/{}/ns/net", self.helper_pid());
        // A thread of its own enters the namespace: the others stay put.
        std::thread::spawn(move || {
            use std::os::fd::AsRawFd;
            let ns = fs::File::open(&netns).unwrap();
            // SAFETY: setns on a namespace descriptor we own, for this thread
            // only; socket/sendto on a descriptor we own, with a zeroed and
            // filled address of the size we pass.
            unsafe {
                assert_eq!(libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET), 0, "setns");
                let fd =
                    libc::socket(libc::AF_NETLINK, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, libc::NETLINK_KOBJECT_UEVENT);
                assert!(fd >= 0, "netlink socket");
                let mut addr: libc::sockaddr_nl = std::mem::zeroed();
                addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
                addr.nl_groups = 1;
                let sent = libc::sendto(
                    fd,
                    message.as_ptr().cast(),
                    message.len(),
                    0,
                    std::ptr::addr_of!(addr).cast(),
                    std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
                );
                libc::close(fd);
                assert_eq!(sent, message.len() as isize, "{}", std::io::Error::last_os_error());
            }
        })
        .join()
        .unwrap();
    }

    /// Serves the root through the kernel-faithful sysfs from now on (as
    /// every run with `GEARSHIFT_TEST_KERNELFS=1` does): for a test whose
    /// point is the kernel's way of answering. Call before [`Helper::spawn`].
    pub fn on_kernel_emulator(&mut self) {
        if self.kernel.is_none() && !super::kernelfs::is_mounted(self.root.path()) {
            self.kernel = Some(super::kernelfs::KernelFs::serve_in_place(self.root.path(), None));
        }
    }

    /// (Re)starts the process on the same root and state.
    pub fn spawn(&mut self, bus: &Bus) {
        if on_kernelfs() {
            self.on_kernel_emulator();
        }
        let starts_before = self.log_text().matches(START_LOGGED).count();
        let log = fs::OpenOptions::new().create(true).append(true).open(&self.log).unwrap();
        let mut command = match self.wrapper.split_first() {
            Some((program, args)) => {
                let mut c = bus.command(program);
                c.args(args).arg(helper_program());
                c
            }
            None => bus.command(helper_program()),
        };
        if self.journal {
            command.env("GEARSHIFT_HELPER_JOURNAL", self.state.path().join("journal"));
        }
        let child = command
            .arg("--root")
            .arg(self.root.path())
            .arg("--state-dir")
            .arg(self.state.path().join("state"))
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("gearshift-helper runs");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !bus.has_owner("io.github.gearshift.Helper1") {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                panic!("the helper exited ({status}): {}", self.log_text());
            }
            assert!(Instant::now() < deadline, "the helper did not take its name: {}", self.log_text());
            std::thread::sleep(Duration::from_millis(20));
        }
        // At its first start the helper applies Balanced: tests change the
        // files only once that is done, whatever its outcome.
        while self.log_text().matches(START_LOGGED).count() == starts_before {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                panic!("the helper exited ({status}): {}", self.log_text());
            }
            assert!(Instant::now() < deadline, "the helper did not apply at start: {}", self.log_text());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the process (SIGTERM) and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Under a wrapper (strace), the helper is the wrapper's child:
            // stop it, and the wrapper ends with it.
            let target =
                if self.wrapper.is_empty() { child.id() } else { first_child(child.id()).unwrap_or(child.id()) };
            // SAFETY: kill with a valid pid of our own process tree.
            unsafe { libc::kill(target as i32, libc::SIGTERM) };
            let _ = child.wait();
        }
    }

    /// Kills the process (SIGKILL: no chance to save or clean up) and waits.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let target =
                if self.wrapper.is_empty() { child.id() } else { first_child(child.id()).unwrap_or(child.id()) };
            // SAFETY: kill with a valid pid of our own process tree.
            unsafe { libc::kill(target as i32, libc::SIGKILL) };
            let _ = child.wait();
        }
    }

    /// The helper's own process id (not the wrapper's).
    pub fn helper_pid(&self) -> u32 {
        let pid = self.pid();
        if self.wrapper.is_empty() {
            pid
        } else {
            first_child(pid).unwrap_or(pid)
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    /// True while the process runs.
    pub fn running(&mut self) -> bool {
        self.child.as_mut().is_some_and(|c| c.try_wait().ok().flatten().is_none())
    }

    /// What the helper logged.
    /// How many events starting with `kind` the helper handled
    /// (`GEARSHIFT_HELPER_JOURNAL`, src/helper/journal.rs).
    pub fn handled(&self, kind: &str) -> usize {
        let journal = fs::read_to_string(self.state.path().join("journal")).unwrap_or_default();
        journal.lines().filter(|l| l.starts_with(kind)).count()
    }

    /// Waits until the helper handled `count` events starting with `kind`
    /// in all: it acted on them, so a test may look at what they changed,
    /// or did not.
    pub fn wait_handled(&self, kind: &str, count: usize) {
        wait_for(|| self.handled(kind) >= count, &format!("the helper to handle {count} × {kind:?}"));
    }

    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A file of the copy, relative to its root.
    pub fn read(&self, rel: &str) -> String {
        match fs::read_to_string(self.root.path().join(rel)) {
            Ok(text) => text,
            // The kernel (and its emulator) answers EBUSY for an offline
            // policy's files; the fixtures hold this marker in their place.
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => "<inactive policy: EBUSY>\n".to_owned(),
            Err(e) => panic!("{rel}: {e}"),
        }
    }

    /// The kernel-faithful sysfs serving the root, in a run on it.
    pub fn kernel(&self) -> Option<&super::kernelfs::KernelFs> {
        self.kernel.as_ref()
    }

    /// `cpufreq/policyN/<attr>` of the copy, trimmed.
    pub fn policy(&self, cpu: u32, attr: &str) -> String {
        self.read(&format!("sys/devices/system/cpu/cpufreq/policy{cpu}/{attr}")).trim().to_owned()
    }

    /// Every file of the copy with its content (to prove nothing changed),
    /// less what changes by itself as on a real machine: the RAPL energy
    /// counters, which the kernel-faithful sysfs counts up.
    pub fn tree(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        collect(self.root.path(), self.root.path(), &mut out);
        out.retain(|path, _| !(path.starts_with("sys/class/powercap") && path.ends_with("energy_uj")));
        out
    }

    /// The process's resident memory in KiB.
    pub fn rss_kib(&self) -> u64 {
        super::procfs::rss_kib(self.pid())
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.stop();
        // The helper held files of the mount: unmount after it is gone.
        self.kernel.take();
    }
}

fn first_child(pid: u32) -> Option<u32> {
    let tasks = fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    for task in tasks.flatten() {
        let children = fs::read_to_string(task.path().join("children")).unwrap_or_default();
        if let Some(child) = children.split_whitespace().next().and_then(|c| c.parse().ok()) {
            return Some(child);
        }
    }
    None
}

fn collect(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).unwrap();
        let rel = path.strip_prefix(base).unwrap().to_owned();
        if meta.file_type().is_symlink() {
            out.insert(rel, fs::read_link(&path).unwrap().into_os_string().into_encoded_bytes());
        } else if meta.is_dir() {
            out.insert(rel, b"<dir>".to_vec());
            collect(base, &path, out);
        } else {
            // The kernel-faithful sysfs answers EBUSY for an offline
            // policy's files, as the kernel does: the errno is the content.
            let content = fs::read(&path).unwrap_or_else(|e| format!("<{e}>").into_bytes());
            out.insert(rel, content);
        }
    }
}

/// A copy of `tests/common/NAME` that other users can read (the build
/// tree may sit under a home directory they cannot enter), in a directory
/// removed with the returned guard.
pub fn script_for_others(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("gearshift-script").tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let script = dir.path().join(name);
    fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common").join(name), &script).unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o644)).unwrap();
    (dir, script)
}

/// A polkit rule that lets uid 1 (`daemon`) switch profiles as an active
/// session's user may (`allow_active` is `yes`); removed when dropped.
/// polkitd reads its rules again when the directory changes.
pub struct ActiveUserRule(PathBuf);

impl ActiveUserRule {
    /// Installs the rule under a file name of the test's own.
    pub fn install(test: &str) -> ActiveUserRule {
        let dir = Path::new("/etc/polkit-1/rules.d");
        fs::create_dir_all(dir).unwrap();
        let path = dir.join(format!("49-gearshift-{test}-test.rules"));
        fs::write(
            &path,
            "polkit.addRule(function(action, subject) {\n  if (action.id == \"io.github.gearshift.switch-profile\" && subject.user == \"daemon\") {\n    return polkit.Result.YES;\n  }\n});\n",
        )
        .unwrap();
        ActiveUserRule(path)
    }
}

impl Drop for ActiveUserRule {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// A copy of the `gearshift` binary that uid 65534 can run (the build tree
/// may sit under a home directory it cannot enter).
pub fn binary_for_nobody() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("gearshift-bin").tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let bin = dir.path().join("gearshift");
    fs::copy(env!("CARGO_BIN_EXE_gearshift"), &bin).unwrap();
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
    (dir, bin)
}

/// Runs the `gearshift` CLI on the bus (as root, or as uid 65534).
pub fn cli(bus: &Bus, as_nobody: Option<&Path>, args: &[&str]) -> Output {
    let out = match as_nobody {
        Some(bin) => bus
            .command("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin)
            .args(args)
            .output(),
        None => bus.command(env!("CARGO_BIN_EXE_gearshift")).args(args).output(),
    }
    .expect("gearshift runs");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    out
}

/// Lets python-dbusmock's mocks own and answer their names on the private bus.
pub const MOCK_POLICY: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy context="default">
    <allow own="org.freedesktop.UPower"/>
    <allow send_destination="org.freedesktop.UPower"/>
    <allow own="org.freedesktop.login1"/>
    <allow send_destination="org.freedesktop.login1"/>
    <allow own="net.hadess.PowerProfiles"/>
    <allow own="org.freedesktop.UPower.PowerProfiles"/>
  </policy>
</busconfig>
"#;

/// The state a client sees: every property of the helper's interfaces
/// (of the names that are served), sorted, as text.
pub fn all_properties(bus: &Bus) -> BTreeMap<String, String> {
    let (runtime, connection) = bus.connect();
    let mut out = BTreeMap::new();
    for (dest, path) in [
        ("io.github.gearshift.Helper1", "/io/github/gearshift/Helper1"),
        ("net.hadess.PowerProfiles", "/net/hadess/PowerProfiles"),
        ("org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles"),
    ] {
        if !bus.has_owner(dest) {
            continue;
        }
        let all = runtime.block_on(async {
            let properties =
                zbus::fdo::PropertiesProxy::builder(&connection).destination(dest)?.path(path)?.build().await?;
            let interface = zbus::names::InterfaceName::try_from(dest)?;
            Ok::<_, zbus::Error>(properties.get_all(interface).await?)
        });
        let all = all.unwrap_or_else(|e| panic!("GetAll on {dest}: {e}"));
        for (name, value) in all {
            out.insert(format!("{dest}.{name}"), format!("{value:?}"));
        }
    }
    out
}
/// A python-dbusmock template running on a bus.
pub struct Mock {
    child: Child,
}

impl Mock {
    /// Starts `python3 -m dbusmock --system --template TEMPLATE` and waits
    /// for `name` on the bus (Debian's python3, which has the module).
    pub fn start(bus: &Bus, template: &str, name: &str) -> Mock {
        let child = bus
            .command("/usr/bin/python3")
            .args(["-m", "dbusmock", "--system", "--template", template])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3-dbusmock");
        bus.wait_for_name(name);
        Mock { child }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The D-Bus error name of a reply, as it crossed the bus ("accepted" for a
/// success): the helper's own errors arrive typed, anything else (the bus's
/// errors, power-profiles-daemon's fdo errors) inside `HelperError::ZBus`.
pub fn error_name<T, E: Into<gearshift::dbus::HelperError>>(result: Result<T, E>) -> String {
    use gearshift::dbus::HelperError;
    match result.map_err(Into::into) {
        Ok(_) => "accepted".into(),
        Err(HelperError::ZBus(zbus::Error::MethodError(name, _, _))) => name.to_string(),
        Err(HelperError::ZBus(zbus::Error::FDO(err))) => zbus::DBusError::name(&*err).to_string(),
        Err(HelperError::ZBus(other)) => format!("{other:?}"),
        Err(err) => zbus::DBusError::name(&err).to_string(),
    }
}

/// A custom profile as `SaveCustomProfile` takes it (`a{sv}`), from the
/// `[[profile]]` table of a profiles.toml text, key by key and unchecked,
/// so that a test can send what the helper must refuse: an id or name
/// that is malformed, a value out of range, a key of another type.
pub fn wire(toml_text: &str) -> gearshift::dbus::WireProfile {
    use zbus::zvariant::{OwnedValue, Value};
    let table: toml::Table = toml::from_str(toml_text).expect("a profiles.toml text");
    let profiles = table.get("profile").and_then(|p| p.as_array()).expect("a [[profile]] table");
    let profile = profiles[0].as_table().expect("a table");
    let mut out = gearshift::dbus::WireProfile::new();
    for (key, value) in profile {
        let owned = match (key.as_str(), value) {
            ("min_khz" | "max_khz", toml::Value::Integer(n)) => OwnedValue::from(*n as u64),
            (_, toml::Value::Integer(n)) => {
                u8::try_from(*n).map_or_else(|_| OwnedValue::from(*n as u32), OwnedValue::from)
            }
            (_, toml::Value::Boolean(b)) => OwnedValue::from(*b),
            (_, toml::Value::String(s)) => OwnedValue::try_from(Value::from(s.as_str())).unwrap(),
            (_, other) => panic!("{key}: {other} has no wire form here"),
        };
        out.insert(key.clone(), owned);
    }
    out
}

/// A profile whose wire form itself is wrong (a key profiles.toml has not).
pub fn malformed_wire() -> gearshift::dbus::WireProfile {
    wire("[[profile]]\nid = \"x\"\nname = \"X\"\ncolour = true\n")
}

/// The holds the desktop's power menu lists (`ActiveProfileHolds`):
/// (application id, profile, reason) each.
pub fn panel_holds(bus: &Bus) -> Vec<(String, String, String)> {
    let (runtime, connection) = bus.connect();
    let proxy = runtime
        .block_on(zbus::Proxy::new(
            &connection,
            "org.freedesktop.UPower.PowerProfiles",
            "/org/freedesktop/UPower/PowerProfiles",
            "org.freedesktop.UPower.PowerProfiles",
        ))
        .unwrap();
    let holds: Vec<std::collections::HashMap<String, zbus::zvariant::OwnedValue>> =
        runtime.block_on(proxy.get_property("ActiveProfileHolds")).unwrap();
    let text = |hold: &std::collections::HashMap<String, zbus::zvariant::OwnedValue>, key: &str| {
        hold.get(key).and_then(|v| String::try_from(v.clone()).ok()).unwrap_or_default()
    };
    holds.iter().map(|h| (text(h, "ApplicationId"), text(h, "Profile"), text(h, "Reason"))).collect()
}
