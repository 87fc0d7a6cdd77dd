//! What the agent follows and holds, and how each event changes it.

use std::collections::{BTreeSet, HashMap};
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

use tokio::time::Instant;

use super::notify::{Event, Inotify};
use super::{procs, rules_in_effect, Followed, HelperEvent, Places, Source, AFTER_EXEC, SCAN_EVERY};

use crate::client::Helper;

/// The agent: its rules, its watches, its holds.
pub(super) struct Agent {
    places: Places,
    pub(super) inotify: Inotify,
    followed: Vec<Followed>,
    /// Watches on programs' files: which rules each serves.
    program_watches: HashMap<i32, Vec<usize>>,
    /// The watch on the person's `app.slice`.
    slice_watch: Option<i32>,
    /// The watch on the person's configuration directory.
    rules_watch: Option<i32>,
    /// Rules whose program is on no directory of `$PATH`: scanned for.
    unwatched: Vec<usize>,
    /// When `/proc` is read next after an exec.
    scans: BTreeSet<Instant>,
    /// The 5 s scan, while a rule's program is on no directory of `$PATH`.
    pub(super) ticker: Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>,
    /// Processes whose end is listened for.
    watched_pids: BTreeSet<u32>,
    /// Holds of rules that are gone, to let go.
    stale: Vec<u32>,
    /// GameMode: a game runs, and the hold taken for it.
    game_mode: Followed,
    exits: tokio::sync::mpsc::UnboundedSender<u32>,
}

impl Agent {
    /// Reads the rules, sets the watches, and looks at what runs already.
    pub(super) fn start(places: Places, exits: tokio::sync::mpsc::UnboundedSender<u32>) -> std::io::Result<Agent> {
        let inotify = Inotify::new()?;
        let mut agent = Agent {
            places,
            inotify,
            followed: Vec::new(),
            program_watches: HashMap::new(),
            slice_watch: None,
            rules_watch: None,
            unwatched: Vec::new(),
            scans: BTreeSet::new(),
            ticker: None,
            watched_pids: BTreeSet::new(),
            stale: Vec::new(),
            game_mode: Followed::new(crate::core::rules::Rule {
                program: None,
                app_id: Some(crate::dbus::GAME_MODE.to_owned()),
                profile: crate::core::panel::PanelProfile::Performance.name().to_owned(),
            }),
            exits,
        };
        let config = agent.places.rules_file().parent().map(PathBuf::from);
        if let Some(dir) = config {
            // The person's own directory: made (for them only) so that a
            // rules file written later is heard.
            let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir);
            agent.rules_watch = agent.inotify.watch(
                &dir,
                libc::IN_CLOSE_WRITE | libc::IN_MOVED_TO | libc::IN_MOVED_FROM | libc::IN_DELETE | libc::IN_CREATE,
            );
        }
        agent.reload();
        Ok(agent)
    }

    /// Reads the rules again and starts over: the watches of the old ones
    /// go (their holds are let go by `reconcile`), the new ones' are set.
    pub(super) fn reload(&mut self) {
        let (rules, problems) = rules_in_effect(&self.places);
        for problem in &problems {
            eprintln!("gearshift agent: {problem}");
        }
        for (wd, _) in self.program_watches.drain() {
            self.inotify.unwatch(wd);
        }
        if let Some(wd) = self.slice_watch.take() {
            self.inotify.unwatch(wd);
        }
        // A hold stays where the same rule is still there; those of rules
        // that are gone are let go by `reconcile`.
        let mut old: Vec<Followed> = std::mem::take(&mut self.followed);
        for rule in rules {
            let kept = old.iter().position(|f| f.rule == rule).map(|at| old.remove(at));
            // A refused hold is asked again: the rules were read anew.
            let (cookie, dismissed) = kept.map_or((None, BTreeSet::new()), |f| (f.cookie, f.dismissed));
            self.followed.push(Followed { cookie, dismissed, ..Followed::new(rule) });
        }
        self.stale.extend(old.iter().filter_map(|f| f.cookie));
        let count = self.followed.len();
        self.unwatched.clear();
        for (index, followed) in self.followed.iter().enumerate() {
            let Some(program) = &followed.rule.program else { continue };
            let files = procs::files_of(program, &self.places.path);
            if files.is_empty() {
                self.unwatched.push(index);
            }
            for file in files {
                if let Some(wd) = self.inotify.watch(&file, libc::IN_OPEN) {
                    self.program_watches.entry(wd).or_default().push(index);
                }
            }
        }
        if self.followed.iter().any(|f| f.rule.app_id.is_some()) {
            self.slice_watch =
                self.inotify.watch(&self.places.app_slice(), libc::IN_CREATE | libc::IN_DELETE | libc::IN_ONLYDIR);
        }
        self.scans.clear();
        self.ticker = if self.unwatched.is_empty() {
            None
        } else {
            super::notify::every(SCAN_EVERY)
                .map_err(|err| eprintln!("gearshift agent: no timer for the scan of /proc: {err}"))
                .ok()
        };
        self.look_at_everything();
        eprintln!("gearshift agent: following {count} rules");
    }

    /// What runs now: every rule's processes and the app scopes there are.
    fn look_at_everything(&mut self) {
        let all: Vec<usize> = (0..self.followed.len()).collect();
        self.scan(&all);
        if let Ok(entries) = std::fs::read_dir(self.places.app_slice()) {
            for entry in entries.flatten() {
                if let Some(name) = entry.file_name().to_str() {
                    self.unit_started(name);
                }
            }
        }
    }

    /// Reads `/proc` for the programs of `rules`.
    fn scan(&mut self, rules: &[usize]) {
        for &index in rules {
            let Some(program) = self.followed.get(index).and_then(|f| f.rule.program.clone()) else { continue };
            for pid in procs::running(&self.places.proc_dir, self.places.uid, &program) {
                if self.followed[index].running.insert(Source::Process(pid)) {
                    self.listen_for_end(pid);
                }
            }
        }
    }

    /// A pidfd for `pid`, read by a task that says when it ended.
    fn listen_for_end(&mut self, pid: u32) {
        if !self.watched_pids.insert(pid) {
            return;
        }
        let exits = self.exits.clone();
        match procs::pidfd(pid).and_then(|fd| super::notify::readable(fd).ok()) {
            Some(fd) => {
                tokio::spawn(async move {
                    let _ = fd.readable().await;
                    let _ = exits.send(pid);
                });
            }
            // Gone already (or no pidfd): ended.
            None => {
                let _ = exits.send(pid);
            }
        }
    }

    /// A desktop started an app in `unit` (a directory in `app.slice`).
    fn unit_started(&mut self, unit: &str) {
        for followed in &mut self.followed {
            if followed.rule.matches_unit(unit) {
                followed.running.insert(Source::Unit(unit.to_owned()));
            }
        }
    }

    /// What inotify said.
    pub(super) fn heard(&mut self, events: &[Event]) {
        let mut reload = false;
        for event in events {
            if Some(event.wd) == self.slice_watch {
                let Some(unit) = event.name.as_ref().and_then(|n| n.to_str()) else { continue };
                if event.mask & libc::IN_CREATE != 0 {
                    self.unit_started(unit);
                } else if event.mask & libc::IN_DELETE != 0 {
                    let gone = Source::Unit(unit.to_owned());
                    self.followed.iter_mut().for_each(|f| {
                        f.running.remove(&gone);
                    });
                }
            } else if Some(event.wd) == self.rules_watch {
                reload |= event.name.as_deref().is_some_and(|n| n == "rules.toml");
            } else if let Some(rules) = self.program_watches.get(&event.wd).cloned() {
                self.scan(&rules);
                let now = Instant::now();
                self.scans.extend(AFTER_EXEC.iter().map(|after| now + *after));
            }
        }
        if reload {
            self.reload();
        }
    }

    /// The next time `/proc` is read, where one is due.
    pub(super) fn next_scan(&self) -> Option<Instant> {
        self.scans.first().copied()
    }

    /// A scan after an exec fell due: the rules with a watched program.
    pub(super) fn scan_due(&mut self) {
        let now = Instant::now();
        let due: Vec<Instant> = self.scans.iter().copied().filter(|at| *at <= now).collect();
        due.iter().for_each(|at| {
            self.scans.remove(at);
        });
        let watched: Vec<usize> = self.program_watches.values().flatten().copied().collect();
        self.scan(&watched);
    }

    /// The 5 s scan: the rules whose program is on no directory of `$PATH`.
    pub(super) fn periodic(&mut self) {
        let unwatched = self.unwatched.clone();
        self.scan(&unwatched);
    }

    /// The process `pid` ended.
    pub(super) fn ended(&mut self, pid: u32) {
        self.watched_pids.remove(&pid);
        let gone = Source::Process(pid);
        self.followed.iter_mut().for_each(|f| {
            f.running.remove(&gone);
        });
    }

    /// GameMode's count of games: while it is above 0, Performance is held
    /// as GameMode's, hands off the CPU.
    pub(super) fn game_mode_count(&mut self, count: i32) {
        let running = Source::Unit(crate::dbus::GAME_MODE.to_owned());
        if count > 0 {
            self.game_mode.running.insert(running);
        } else {
            self.game_mode.running.clear();
        }
    }

    /// The helper restarted, or ended a hold itself.
    pub(super) fn helper_said(&mut self, event: HelperEvent) {
        match event {
            HelperEvent::Restarted => {
                // Its holds are gone, and what it refused is asked again; a
                // person's own dismissal stands.
                for followed in self.followed.iter_mut().chain(std::iter::once(&mut self.game_mode)) {
                    followed.cookie = None;
                    followed.refused.clear();
                }
            }
            HelperEvent::Released(cookie) => {
                for followed in self
                    .followed
                    .iter_mut()
                    .chain(std::iter::once(&mut self.game_mode))
                    .filter(|f| f.cookie == Some(cookie))
                {
                    followed.cookie = None;
                    followed.dismissed.clone_from(&followed.running);
                    eprintln!("gearshift agent: the hold for {} was ended elsewhere", followed.rule.holder_name());
                }
            }
        }
    }

    /// Holds what should be held and lets go what should not: a rule of a
    /// program that runs (and that nobody dismissed) holds its profile, and
    /// so does GameMode while a game runs (hands off the CPU).
    pub(super) async fn reconcile(&mut self, helper: &Helper) {
        for cookie in std::mem::take(&mut self.stale) {
            let _ = helper.call(|p| async move { p.release_profile(cookie).await }).await;
        }
        for followed in &mut self.followed {
            reconcile_one(followed, helper, |p, rule| async move {
                p.hold_profile(&rule.profile, &rule.reason(), rule.holder_name()).await
            })
            .await;
        }
        reconcile_one(&mut self.game_mode, helper, |p, _| async move {
            p.hold_for_game_mode("GameMode: a game is running").await
        })
        .await;
    }

    /// Lets every hold go (the agent stops).
    pub(super) async fn release_all(&mut self, helper: &Helper) {
        if let Some(cookie) = self.game_mode.cookie.take() {
            let _ = helper.call(|p| async move { p.release_profile(cookie).await }).await;
        }
        for cookie in std::mem::take(&mut self.stale) {
            let _ = helper.call(|p| async move { p.release_profile(cookie).await }).await;
        }
        for followed in &mut self.followed {
            if let Some(cookie) = followed.cookie.take() {
                let _ = helper.call(|p| async move { p.release_profile(cookie).await }).await;
            }
        }
    }
}

/// Takes or lets go one hold: held while what the rule follows runs (and
/// nobody dismissed it, and the helper did not refuse it), through `hold`.
async fn reconcile_one<F, Fut>(followed: &mut Followed, helper: &Helper, hold: F)
where
    F: FnOnce(crate::dbus::Helper1Proxy<'static>, crate::core::rules::Rule) -> Fut,
    Fut: std::future::Future<Output = Result<u32, crate::dbus::HelperError>>,
{
    followed.forget_ended();
    let name = followed.rule.holder_name().to_owned();
    match (followed.wanted(), followed.cookie) {
        (true, None) => {
            let rule = followed.rule.clone();
            match helper.call(|p| hold(p, rule)).await {
                Ok(cookie) => {
                    eprintln!("gearshift agent: holding {} while {name} runs", followed.rule.profile);
                    followed.cookie = Some(cookie);
                }
                Err(err) => {
                    eprintln!("gearshift agent: no hold for {name}: {}", err.advice());
                    // Asked again when the helper comes back, or when the
                    // program runs anew.
                    followed.refused.clone_from(&followed.running);
                }
            }
        }
        (false, Some(cookie)) => {
            followed.cookie = None;
            let _ = helper.call(|p| async move { p.release_profile(cookie).await }).await;
            eprintln!("gearshift agent: let go of {name}");
        }
        _ => {}
    }
}
