//! The per-user agent (`gearshift agent`, run by the `gearshift-agent`
//! systemd user unit): it follows the rules "while PROGRAM runs, hold
//! PROFILE" (docs/rules.md) and holds the profile through the helper's
//! `HoldProfile` for as long as a matching program of this person runs.
//!
//! It runs as the person, not as root: it sees their processes and their
//! desktop's app scopes, and its holds end with its bus connection. It
//! waits on events only, so that while nothing happens it does not wake:
//! - a program started from anywhere: an inotify watch on the program's
//!   files on `$PATH` hears the exec open it, then `/proc` says which of
//!   this person's processes run it; a pidfd per such process hears it end;
//! - an app the desktop started: systemd puts it in its own
//!   `app-…-APPID-….scope` under the person's `app.slice`, watched with
//!   inotify (docs/rules.md says how the directory is found);
//! - the person's rules file, watched too; SIGHUP reads the
//!   administrator's again.
//!
//! Only a rule whose program is on no directory of `$PATH` is looked for
//! by a scan of `/proc` every 5 s, and only while it exists.

pub mod notify;
pub mod procs;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::time::Instant;

use crate::client::Helper;
use crate::core::config::Config;
use crate::core::rules::{parse_rules, Rule, MAX_RULES};

/// How often a rule whose program is on no directory of `$PATH` is looked
/// for.
pub const SCAN_EVERY: Duration = Duration::from_secs(5);
/// After an exec opened a program's file, `/proc` is read at once and
/// again after these (the process shows its new executable only once the
/// exec is done).
const AFTER_EXEC: [Duration; 2] = [Duration::from_millis(100), Duration::from_secs(1)];
/// The person's rules file is not read past this.
const MAX_RULES_BYTES: u64 = 64 * 1024;

/// Where the agent looks.
#[derive(Debug, Clone)]
pub struct Places {
    /// The root of /etc/gearshift and of the cgroup tree (`/`, or a test's).
    pub root: PathBuf,
    /// The processes (`/proc`).
    pub proc_dir: PathBuf,
    /// The person's configuration directory (`$XDG_CONFIG_HOME`).
    pub config_home: PathBuf,
    /// The session's `$PATH`.
    pub path: String,
    /// This person.
    pub uid: u32,
}

impl Places {
    /// The places of this process's person and session, the cgroup tree and
    /// /etc under `root`.
    pub fn of_session(root: &Path) -> Places {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"));
        let config_home = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home.join(".config"));
        Places {
            root: root.to_path_buf(),
            proc_dir: PathBuf::from("/proc"),
            config_home,
            path: std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".to_owned()),
            // SAFETY: getuid cannot fail.
            uid: unsafe { libc::getuid() },
        }
    }

    /// The person's rules file.
    pub fn rules_file(&self) -> PathBuf {
        self.config_home.join("gearshift/rules.toml")
    }

    /// The directory systemd puts this person's desktop apps in:
    /// `sys/fs/cgroup/user.slice/user-UID.slice/user@UID.service/app.slice`.
    pub fn app_slice(&self) -> PathBuf {
        let uid = self.uid;
        self.root.join(format!("sys/fs/cgroup/user.slice/user-{uid}.slice/user@{uid}.service/app.slice"))
    }
}

/// The rules in effect and what was wrong: the administrator's, then the
/// person's (none while the administrator's lock is on, or where their
/// file cannot be read).
pub fn rules_in_effect(places: &Places) -> (Vec<Rule>, Vec<String>) {
    let found = RulesFound::read(places);
    (found.rules.into_iter().map(|(rule, _)| rule).collect(), found.problems)
}

/// The rules in effect, each with the file that holds it, and what
/// decides which apply.
#[derive(Debug, Clone, Default)]
pub struct RulesFound {
    /// The administrator's, then the person's.
    pub rules: Vec<(Rule, PathBuf)>,
    /// The administrator's lock, where one is on: then only their rules.
    pub locked_by: Option<PathBuf>,
    /// Files set aside, each with what is wrong (English, for logs).
    pub problems: Vec<String>,
}

impl RulesFound {
    /// Reads the administrator's rules under the root and the person's.
    pub fn read(places: &Places) -> RulesFound {
        match crate::core::root::SysRoot::open(&places.root) {
            Ok(root) => {
                let machine = crate::core::machine::Machine::read(&root);
                let table = crate::core::models::ModelTable::builtin();
                let config = Config::load(&root, &crate::core::profile::Resolver::new(&machine, &table));
                RulesFound::of_config(&config, places)
            }
            Err(err) => RulesFound { problems: vec![err.to_string()], ..RulesFound::default() },
        }
    }

    /// The rules of the administrator's configuration, read already, and
    /// the person's (unless the administrator's lock is on).
    pub fn of_config(config: &Config, places: &Places) -> RulesFound {
        let mut found = RulesFound {
            rules: config.rules.iter().map(|r| (r.value.clone(), r.file.clone())).collect(),
            locked_by: config.locked_by().cloned(),
            problems: config.problems.iter().map(crate::core::config::ConfigProblem::english).collect(),
        };
        if found.locked_by.is_some() {
            return found;
        }
        let file = places.rules_file();
        match read_rules_file(&file) {
            Ok(own) => found.rules.extend(own.into_iter().map(|rule| (rule, file.clone()))),
            Err(why) => found.problems.push(format!("{}: {why}", file.display())),
        }
        found
    }
}

/// The person's own rules, whether or not they apply now.
///
/// # Errors
/// The file cannot be read or understood (English, for logs and the window).
pub fn own_rules(places: &Places) -> Result<Vec<Rule>, String> {
    read_rules_file(&places.rules_file())
}

/// Writes the person's rules: each checked, at most [`MAX_RULES`], into a
/// temporary file of theirs (mode 0600) renamed over the old one, so that
/// the agent, which watches the directory, never reads half a file.
///
/// # Errors
/// A rule is not valid, there are too many, or the file cannot be written
/// (the old one is left as it was).
pub fn write_own_rules(places: &Places, rules: &[Rule]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let invalid = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    if rules.len() > MAX_RULES {
        return Err(invalid(format!("at most {MAX_RULES} rules")));
    }
    for rule in rules {
        rule.clone().checked().map_err(|why| invalid(why.english()))?;
    }
    let text = crate::core::rules::format_rules(rules).map_err(|err| invalid(err.to_string()))?;
    let file = places.rules_file();
    let dir = file.parent().unwrap_or(Path::new("/"));
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let temporary = dir.join(format!(".rules.toml.{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temporary)
        .and_then(|mut out| {
            out.write_all(text.as_bytes())?;
            out.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, &file));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// The person's rules: none where there is no file.
fn read_rules_file(file: &Path) -> Result<Vec<Rule>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(file);
    let opened = match opened {
        Ok(opened) => opened,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err.to_string()),
    };
    if !opened.metadata().is_ok_and(|m| m.is_file()) {
        return Err("is not a regular file: it is not read".to_owned());
    }
    let text =
        crate::core::root::read_small_text(opened, file, MAX_RULES_BYTES).map_err(|p| p.what)?.unwrap_or_default();
    parse_rules(&text).map_err(|why| why.english())
}

/// What runs now that a rule follows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    /// A process of the rule's program.
    Process(u32),
    /// A desktop app's scope.
    Unit(String),
}

/// A rule and what the agent knows of it.
#[derive(Debug)]
struct Followed {
    rule: Rule,
    running: BTreeSet<Source>,
    /// The hold's cookie, while the helper has it.
    cookie: Option<u32>,
    /// What ran when a person ended the hold (a manual switch): the hold
    /// is not taken again for these, only for a process or app started
    /// since. A set, not a flag: a program that ends and starts again at
    /// once may be heard starting before its end.
    dismissed: BTreeSet<Source>,
    /// What ran when the helper refused the hold (its lock, polkit, or it
    /// was not there): asked again when the helper comes back, the rules
    /// are read again, or something new runs; not at every event.
    refused: BTreeSet<Source>,
}

impl Followed {
    fn new(rule: Rule) -> Followed {
        Followed { rule, running: BTreeSet::new(), cookie: None, dismissed: BTreeSet::new(), refused: BTreeSet::new() }
    }

    /// Forgets what no longer runs, in what was dismissed or refused.
    fn forget_ended(&mut self) {
        let running = &self.running;
        self.dismissed.retain(|s| running.contains(s));
        self.refused.retain(|s| running.contains(s));
    }

    /// Whether the rule's profile should be held now: something runs that
    /// was neither dismissed nor refused.
    fn wanted(&self) -> bool {
        self.running.iter().any(|s| !self.dismissed.contains(s) && !self.refused.contains(s))
    }
}

/// Runs until SIGTERM or SIGINT; holds let go then.
///
/// # Errors
/// No inotify instance.
pub async fn run(places: Places) -> std::io::Result<()> {
    let helper = Helper::new();
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut sighup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let (exit_tx, mut exits) = tokio::sync::mpsc::unbounded_channel::<u32>();
    let mut helper_events = helper_events(&helper).await;
    let mut agent = Agent::start(places, exit_tx)?;
    let mut game_mode = GameMode::watch().await;
    if let Some(watched) = &game_mode {
        agent.game_mode_count(watched.client_count().await);
    }
    loop {
        agent.reconcile(&helper).await;
        let scan_at = agent.next_scan();
        tokio::select! {
            events = agent.inotify.events() => {
                let events = events?;
                agent.heard(&events);
            }
            Some(pid) = exits.recv() => agent.ended(pid),
            () = sleep_until(scan_at) => agent.scan_due(),
            Some(()) = tick(agent.ticker.as_ref()) => agent.periodic(),
            Some(event) = next_event(&mut helper_events) => agent.helper_said(event),
            Some(()) = GameMode::changed(&mut game_mode) => {
                if let Some(watched) = &game_mode {
                    agent.game_mode_count(watched.client_count().await);
                }
            }
            _ = sighup.recv() => agent.reload(),
            _ = sigterm.recv() => break,
            _ = sigint.recv() => break,
        }
    }
    agent.release_all(&helper).await;
    Ok(())
}

/// What the helper said that concerns the agent's holds.
enum HelperEvent {
    /// The helper (re)started, or left: every hold it had is gone.
    Restarted,
    /// A hold ended without the agent asking.
    Released(u32),
}

type HelperEvents = std::pin::Pin<Box<dyn futures_util::Stream<Item = HelperEvent> + Send>>;

/// The helper's restarts and releases, where the bus can tell.
async fn helper_events(helper: &Helper) -> Option<HelperEvents> {
    let connection = helper.connection().await.ok()?;
    let dbus = zbus::fdo::DBusProxy::new(&connection).await.ok()?;
    let owners = dbus
        .receive_name_owner_changed_with_args(&[(0, crate::dbus::HELPER_NAME)])
        .await
        .ok()?
        .map(|_| HelperEvent::Restarted);
    let proxy = crate::dbus::Helper1Proxy::new(&connection).await.ok()?;
    let released = proxy
        .receive_profile_released()
        .await
        .ok()?
        .filter_map(|signal| async move { signal.args().ok().map(|a| HelperEvent::Released(a.cookie)) });
    Some(Box::pin(futures_util::stream::select(owners, released)))
}

async fn next_event(events: &mut Option<HelperEvents>) -> Option<HelperEvent> {
    match events {
        Some(events) => events.next().await,
        None => std::future::pending().await,
    }
}

/// The 5 s timer's next firing, where there is one.
async fn tick(timer: Option<&tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>) -> Option<()> {
    match timer {
        Some(timer) => notify::fired(timer).await.ok(),
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

mod state;
use state::Agent;

/// GameMode on the person's session bus: each time its `ClientCount`
/// may have changed (its name's owner changed, or a signal from its
/// object: `PropertiesChanged`, `GameRegistered`, `GameUnregistered`), the
/// count read from its owner (0 where none owns the name). A signal only
/// makes the agent ask: a forged one changes nothing.
pub struct GameMode {
    connection: zbus::Connection,
    events: std::pin::Pin<Box<dyn futures_util::Stream<Item = ()> + Send>>,
}

impl GameMode {
    /// Watches GameMode on the session bus; `None` without one.
    pub async fn watch() -> Option<GameMode> {
        let connection = zbus::Connection::session().await.ok()?;
        let dbus = zbus::fdo::DBusProxy::new(&connection).await.ok()?;
        let owners = dbus.receive_name_owner_changed_with_args(&[(0, crate::dbus::GAME_MODE)]).await.ok()?.map(|_| ());
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .path(crate::dbus::GAME_MODE_PATH)
            .ok()?
            .build();
        let signals = zbus::MessageStream::for_match_rule(rule, &connection, Some(16)).await.ok()?.map(|_| ());
        Some(GameMode { connection, events: Box::pin(futures_util::stream::select(owners, signals)) })
    }

    /// Games running now, by GameMode's own count.
    pub async fn client_count(&self) -> i32 {
        let proxy = zbus::Proxy::new(
            &self.connection,
            crate::dbus::GAME_MODE,
            crate::dbus::GAME_MODE_PATH,
            crate::dbus::GAME_MODE,
        )
        .await;
        match proxy {
            Ok(proxy) => proxy.get_property::<i32>("ClientCount").await.unwrap_or(0),
            Err(_) => 0,
        }
    }

    /// The next hint that the count may have changed.
    pub async fn changed(game_mode: &mut Option<GameMode>) -> Option<()> {
        match game_mode {
            Some(game_mode) => game_mode.events.next().await,
            None => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Followed, Source};
    use crate::core::rules::Rule;

    fn followed() -> Followed {
        Followed::new(Rule { program: Some("blender".into()), app_id: None, profile: "performance".into() })
    }

    #[test]
    fn a_dismissal_covers_what_ran_then_and_not_what_started_since() {
        let mut rule = followed();
        assert!(!rule.wanted(), "nothing runs");
        rule.running.insert(Source::Process(10));
        assert!(rule.wanted());
        // A person switched by hand while process 10 ran.
        rule.dismissed.clone_from(&rule.running);
        assert!(!rule.wanted());
        // The program starts again, heard before the old one's end: held.
        rule.running.insert(Source::Process(11));
        assert!(rule.wanted());
        rule.running.clear();
        rule.forget_ended();
        assert!(rule.dismissed.is_empty());
    }

    #[test]
    fn a_refusal_is_asked_again_for_something_new_or_after_it_is_forgotten() {
        let mut rule = followed();
        rule.running.insert(Source::Unit("app-org.blender.Blender-1.scope".into()));
        rule.refused.clone_from(&rule.running);
        assert!(!rule.wanted(), "not asked again at every event");
        rule.running.insert(Source::Process(12));
        assert!(rule.wanted(), "something new runs");
        // The helper came back: what it refused is asked again.
        rule.running.remove(&Source::Process(12));
        rule.refused.clear();
        assert!(rule.wanted());
    }
}
