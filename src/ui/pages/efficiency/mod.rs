//! The Efficiency page: measures how much work per joule each profile gives
//! on this computer (docs/efficiency.md), and lists earlier measurements.
//!
//! A component that runs the lab itself: on battery or when the machine is
//! busy it asks first, once, saying all that is worth knowing (what would
//! spoil the figures, how long it takes, what it changes); it runs
//! `client::lab::measure` on a blocking thread with a cancel flag, reports
//! each run with the time left, keeps a finished measurement and reads
//! the kept ones, all off the GTK main thread. The window hears only
//! whether a measurement runs (switching is off meanwhile), what to tell
//! the person, and which profile to use. The widgets are in `view.rs`.

mod figures;
mod kept;
mod rows;
mod timing;
mod view;

use gearshift::core::profile_id::ProfileId;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use relm4::adw::{self, prelude::*};
use relm4::gtk;
use relm4::{Component, ComponentParts, ComponentSender};

use gearshift::client::lab::{self, Estimate, Kept, Outcome, Span};
use gearshift::client::{ClientError, Helper};
use gearshift::core::custom::CustomProfile;
use gearshift::core::measure::{self, End, Workload};
use gearshift::core::root::Probe;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f};

use crate::context::Context;
use crate::ui::model::{ErrorView, Notice};
use view::{EfficiencyView, Here};

/// What the page asks to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct LabRequest {
    /// The workload.
    pub workload: Workload,
    /// Profile ids (and `kernel_default`).
    pub profiles: Vec<String>,
    /// Times the standard work.
    pub scale: f64,
    /// How many rounds.
    pub rounds: measure::Rounds,
    /// The person said to measure although something spoils the figures.
    pub confirmed: bool,
}

/// What would spoil a measurement's figures, found before it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spoilers {
    /// The computer runs on battery.
    pub battery: bool,
    /// The CPUs were this busy (a share) with other work, above
    /// [`measure::BUSY_LIMIT`].
    pub busy: Option<f64>,
}

/// What the page is told, by the window and by its own widgets.
#[derive(Debug)]
pub enum LabMsg {
    /// The machine as the window knows it now (its custom profiles, what
    /// each profile sets).
    Machine(Box<Context>, Box<Status>),
    /// Whether measuring is possible, and why not.
    Writable(bool, String),
    /// Start: measure what the controls ask for.
    Start,
    /// Measure (asking first where the figures would suffer).
    Measure(LabRequest),
    /// A profile was checked or cleared in the list to compare.
    Chosen,
    /// Stop the measurement; the helper puts the profile back.
    Cancel,
    /// Show the kept measurement of this row.
    ShowKept(usize),
    /// The view shows a measurement: its best profile and verdict.
    Shown {
        /// The best profile's id.
        best: Option<String>,
        /// What the page says about it.
        verdict: String,
    },
    /// Use the best profile now (`battery` None), on battery or on AC.
    UseBest {
        /// On battery (true), on AC power (false), or now (none).
        battery: Option<bool>,
    },
}

/// What the page tells the window.
#[derive(Debug)]
pub enum LabOut {
    /// A measurement began (true) or ended: no switching meanwhile.
    Running(bool),
    /// Switch to a profile now.
    Switch(ProfileId),
    /// Use a profile on battery (true) or on AC (false).
    UseOn {
        /// The profile.
        id: String,
        /// Battery or AC.
        battery: bool,
    },
    /// Something to tell the person.
    Notice(Notice),
    /// What the page shows now (for the window's state file).
    State(LabState),
}

/// What the page shows, as tests read it (src/ui/state.rs).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct LabState {
    /// The run on now: its number (from 1), how many at least and at most
    /// in all, its profile.
    pub run: Option<(usize, usize, usize, String)>,
    /// The question before measuring is open ("before"), naming what
    /// spoils the figures ("battery", "busy").
    pub asked: Option<&'static str>,
    pub spoilers: Vec<&'static str>,
    /// Questions asked so far (one per measurement at most).
    pub questions: u64,
    /// The estimate above Start, and while it runs the time left.
    pub estimate: Option<String>,
    pub left: Option<String>,
    /// Cancelling was asked.
    pub cancelling: bool,
    /// How the last measurement ended ("done", "cancelled", "failed",
    /// "not begun", "command failed"), and the profile put back.
    pub ended: Option<&'static str>,
    pub restored: Option<String>,
    /// Measurements ended so far (any way).
    pub ends: u64,
    /// Earlier measurements listed.
    pub kept: usize,
    /// The result on screen: the best profile and the verdict.
    pub best: Option<String>,
    pub verdict: Option<String>,
}

/// The background work's results.
#[derive(Debug)]
pub enum LabCmd {
    /// What would spoil the figures of a request, checked before it starts.
    Checked(LabRequest, Spoilers),
    /// The energy counters cannot be read: the measurement is time only.
    TimeOnly(ClientError),
    /// Run `index` (from 0) of the fewest to the most is on a profile,
    /// starting at that instant.
    Progress(usize, usize, usize, String, Instant),
    /// The measurement ended, or could not begin; a finished one as kept.
    Done(Box<Result<Outcome, ClientError>>, Option<Box<Kept>>),
    /// The kept measurements, newest first.
    Kept(Vec<(PathBuf, Kept)>),
}

/// What the page starts with.
pub struct LabInit {
    /// The machine.
    pub ctx: Context,
    /// Its status.
    pub status: Status,
    /// The way to the helper.
    pub helper: Helper,
}

/// The page.
pub struct EfficiencyPage {
    view: EfficiencyView,
    ctx: Context,
    status: Status,
    helper: Helper,
    writable: bool,
    /// Why measuring is off, as shown.
    why_not: String,
    /// The running measurement's cancel flag.
    running: Option<Arc<AtomicBool>>,
    /// Checking or asking before a measurement.
    asking: bool,
    /// How long the running measurement takes, corrected by its runs; the
    /// last run's start.
    estimate: Option<(Estimate, Option<(usize, Instant)>)>,
    /// The kept measurements listed, newest first.
    kept: Vec<(PathBuf, Kept)>,
    state: LabState,
    /// What the window heard last.
    told: LabState,
}

impl Component for EfficiencyPage {
    type CommandOutput = LabCmd;
    type Input = LabMsg;
    type Output = LabOut;
    type Init = LabInit;
    type Root = adw::PreferencesPage;
    type Widgets = ();

    fn init_root() -> Self::Root {
        adw::PreferencesPage::new()
    }

    fn init(init: LabInit, root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let LabInit { ctx, status, helper } = init;
        let resolver = ctx.resolver();
        let here = Here {
            machine: resolver.model.as_ref().and_then(|m| m.codename.clone()).unwrap_or_else(|| gettext("computer")),
            claims: resolver.model.as_ref().map(|m| m.claims.clone()).unwrap_or_default(),
            timing: timing::Timing {
                cpu: lab::Origin::of(&resolver).cpu,
                cpus: ctx.machine.online_ids().len(),
                scale: ctx.dev.lab_scale_milli.map_or(1.0, |m| f64::from(m) / 1000.0),
                kept: Vec::new(),
            },
        };
        let kernel_default = measure::kernel_default(&resolver);
        let mut view = EfficiencyView::new(root, &ctx.customs, kernel_default, here, sender.input_sender());
        view.set_machine(status.active_profile.clone(), status.battery);
        let page = EfficiencyPage {
            view,
            ctx,
            status,
            helper,
            writable: false,
            why_not: String::new(),
            running: None,
            asking: false,
            estimate: None,
            kept: Vec::new(),
            state: LabState::default(),
            told: LabState::default(),
        };
        page.list_kept(&sender);
        ComponentParts { model: page, widgets: () }
    }

    fn update(&mut self, msg: LabMsg, sender: ComponentSender<Self>, root: &Self::Root) {
        self.take(msg, &sender, root);
        self.tell(&sender);
    }

    fn update_cmd(&mut self, msg: LabCmd, sender: ComponentSender<Self>, root: &Self::Root) {
        self.result(msg, &sender, root);
        self.tell(&sender);
    }
}

impl EfficiencyPage {
    fn take(&mut self, msg: LabMsg, sender: &ComponentSender<Self>, _root: &adw::PreferencesPage) {
        match msg {
            LabMsg::Machine(ctx, status) => {
                if ctx.customs != self.ctx.customs {
                    self.view.set_customs(&ctx.customs);
                }
                self.ctx = *ctx;
                self.view.set_machine(status.active_profile.clone(), status.battery);
                self.status = *status;
            }
            LabMsg::Writable(writable, why_not) => {
                // Said after every event of the helper's: only a change is work.
                if (writable, &why_not) != (self.writable, &self.why_not) {
                    self.writable = writable;
                    self.view.set_writable(writable, &why_not);
                    self.why_not = why_not;
                }
            }
            LabMsg::Measure(request) => {
                if !self.writable || self.running.is_some() || self.asking {
                    return;
                }
                if request.confirmed {
                    return self.start(sender, request);
                }
                // What would spoil the figures: a few files and half a
                // second of /proc/stat, off the main thread.
                self.asking = true;
                self.state.asked = None;
                self.view.set_asking(true);
                let root = self.ctx.root.clone();
                sender.spawn_oneshot_command(move || {
                    let battery = gearshift::core::power_supply::on_battery(&mut Probe::new(&root));
                    let busy = measure::busy_share().filter(|b| *b > measure::BUSY_LIMIT);
                    LabCmd::Checked(request, Spoilers { battery, busy })
                });
            }
            LabMsg::ShowKept(index) => {
                if let Some((path, kept)) = self.kept.get(index) {
                    log::debug!("showing the kept {}", path.display());
                    self.view.show(kept);
                }
            }
            LabMsg::Shown { best, verdict } => {
                self.state.best = best;
                self.state.verdict = Some(verdict);
            }
            LabMsg::Chosen => self.view.update_start(),
            LabMsg::Start => {
                if let Some(request) = self.view.request() {
                    sender.input(LabMsg::Measure(request));
                }
            }
            LabMsg::Cancel => {
                if let Some(cancel) = &self.running {
                    self.state.cancelling = true;
                    log::debug!("lab: cancel asked");
                    cancel.store(true, Ordering::SeqCst);
                    self.view.note(&gettext("Stopping; the profile you used comes back…"));
                }
            }
            // The best profile of the result on screen (`Shown`).
            LabMsg::UseBest { battery } => match (self.state.best.clone(), battery) {
                (Some(id), None) => {
                    if let Some(profile) = ProfileId::parse(&id) {
                        let _ = sender.output(LabOut::Switch(profile));
                    }
                }
                (Some(id), Some(battery)) => drop(sender.output(LabOut::UseOn { id, battery })),
                (None, _) => {}
            },
        }
    }

    fn result(&mut self, msg: LabCmd, sender: &ComponentSender<Self>, root: &adw::PreferencesPage) {
        match msg {
            LabCmd::Checked(request, spoilers) => {
                // Start works again: the question, where there is one, is
                // modal.
                self.asking = false;
                self.view.set_asking(false);
                if !self.writable || self.running.is_some() {
                    return;
                }
                if spoilers == (Spoilers { battery: false, busy: None }) {
                    return self.start(sender, request);
                }
                self.ask(root, sender, request, spoilers);
            }
            LabCmd::TimeOnly(err) => self.view.note(&i18n_f(
                "No energy can be read here ({}): the results are time only, with no work per joule.",
                &[&err.headline()],
            )),
            LabCmd::Progress(index, fewest, most, id, at) => {
                let left = self.estimate.as_mut().and_then(|(estimate, last)| {
                    if let Some((run, started)) = last.filter(|(run, _)| *run + 1 == index) {
                        estimate.ran(run, at.saturating_duration_since(started).as_secs_f64());
                    }
                    *last = Some((index, at));
                    // From the first run's time on: before it, the estimate
                    // above Start said it.
                    (index > 0).then(|| estimate.left(index, fewest, most))
                });
                let left = left.map(|(soonest, latest)| Span::of(soonest, latest));
                self.view.progress((index, fewest, most), &id, left);
                self.state.left = left.map(lab::left_words);
                self.state.run = Some((index + 1, fewest, most, id));
            }
            LabCmd::Done(result, kept) => {
                self.stopped(sender);
                self.done(sender, *result, kept.map(|k| *k));
            }
            LabCmd::Kept(kept) => {
                self.state.kept = kept.len();
                self.view.set_kept(&kept);
                if self.ctx.dev.lab_show_kept && self.kept.is_empty() {
                    if let Some((_, newest)) = kept.first() {
                        self.view.show(newest);
                    }
                }
                self.kept = kept;
            }
        }
    }
}

impl EfficiencyPage {
    /// Asks once before measuring where something spoils the figures,
    /// saying all of it, how long the measurement takes and what it
    /// changes; on "Measure Anyway", `request` confirmed.
    fn ask(
        &mut self,
        root: &adw::PreferencesPage,
        sender: &ComponentSender<Self>,
        request: LabRequest,
        spoilers: Spoilers,
    ) {
        let Some(window) = root.root().and_downcast::<gtk::Window>() else { return };
        let words = lab::before_words(spoilers.battery, spoilers.busy, &self.view.timing().how_long(&request));
        let about: Vec<&'static str> = [(spoilers.battery, "battery"), (spoilers.busy.is_some(), "busy")]
            .into_iter()
            .filter_map(|(on, what)| on.then_some(what))
            .collect();
        log::debug!("lab: asking first ({about:?})");
        self.state.asked = Some("before");
        self.state.spoilers = about;
        self.state.questions += 1;
        let again = LabMsg::Measure(LabRequest { confirmed: true, ..request });
        let heading = gettext("Measure Anyway?");
        crate::ui::dialogs::confirm_measure(&window, &heading, &words.join("\n\n"), sender.input_sender(), again);
    }
}

impl EfficiencyPage {
    /// Runs the measurement on a blocking thread: `client::lab::measure`,
    /// reporting each run, and keeps a finished one with the time it took.
    fn start(&mut self, sender: &ComponentSender<Self>, request: LabRequest) {
        let cancel = Arc::new(AtomicBool::new(false));
        self.running = Some(cancel.clone());
        self.asking = false;
        self.state.asked = None;
        let resolver = self.ctx.resolver();
        let kernel_default = measure::kernel_default(&resolver);
        let epps = lab::epps(&request.profiles, &self.status, kernel_default);
        let plan = self.view.timing().plan(&request);
        self.estimate = Some((self.view.timing().estimate(&request), None));
        let (scale, cpus) = (plan.scale, plan.cpus);
        let session = measure::Session {
            profiles: request.profiles.clone(),
            epps,
            workload: Some(request.workload),
            command: None,
            rounds: request.rounds,
            scale,
            cpus,
        };
        let (fewest, most) = session.rounds.range();
        self.view.started(session.profiles.len() * fewest, session.profiles.len() * most);
        let _ = sender.output(LabOut::Running(true));
        let helper = self.helper.clone();
        let origin = lab::Origin::of(&resolver);
        log::debug!("lab: measuring {:?} {:?} at scale {scale}", session.profiles, session.rounds);
        sender.spawn_command(move |out| {
            let began = Instant::now();
            let runtime = tokio::runtime::Handle::current();
            let source = lab::energy_source(&helper, &runtime);
            if let Err(err) = &source {
                let _ = out.send(LabCmd::TimeOnly(err.clone()));
            }
            let progress_out = out.clone();
            let mut progress = move |p: measure::Progress<'_>| {
                let at = Instant::now();
                let _ = progress_out.send(LabCmd::Progress(p.run, p.fewest, p.most, p.profile.to_owned(), at));
            };
            let result = lab::measure(&helper, &runtime, &session, source.ok().flatten(), &cancel, &mut progress);
            // Kept here, off the main thread: a finished measurement only.
            let kept = result.as_ref().ok().filter(|o| o.end == End::Done).map(|outcome| {
                let (kept, path) = origin.keep_timed(&outcome.report, Some(began.elapsed().as_secs_f64()));
                match path {
                    Some(Ok(path)) => log::debug!("lab: kept in {}", path.display()),
                    Some(Err(err)) => log::warn!("the measurement could not be kept: {err}"),
                    None => {}
                }
                kept
            });
            let _ = out.send(LabCmd::Done(Box::new(result), kept.map(Box::new)));
        });
    }

    fn stopped(&mut self, sender: &ComponentSender<Self>) {
        self.running = None;
        self.estimate = None;
        self.state.left = None;
        self.state.run = None;
        self.state.cancelling = false;
        self.view.stopped();
        let _ = sender.output(LabOut::Running(false));
    }

    /// Shows how a measurement ended.
    fn done(&mut self, sender: &ComponentSender<Self>, result: Result<Outcome, ClientError>, kept: Option<Kept>) {
        let notice = |n| {
            let _ = sender.output(LabOut::Notice(n));
        };
        self.state.ends += 1;
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(err) => {
                self.state.ended = Some("not begun");
                log::debug!("lab: not begun: {err:?}");
                return notice(Notice::Error(ErrorView::from_client(&err)));
            }
        };
        let customs: &[CustomProfile] = &self.ctx.customs;
        let name = |id: &str| lab::profile_name(id, customs, None);
        let restored = outcome.report.restored.clone();
        self.state.restored = Some(restored.clone());
        self.state.ended = Some(match outcome.end {
            End::Done => "done",
            End::Cancelled => "cancelled",
            End::Failed(_) => "failed",
            End::CommandFailed => "command failed",
        });
        if let Some(err) = &outcome.restore_failed {
            notice(Notice::Error(ErrorView::from_client(err)));
        }
        match outcome.end {
            End::Done => {
                self.list_kept(sender);
                if let Some(kept) = &kept {
                    self.view.show(kept);
                }
                if outcome.restore_failed.is_none() {
                    let text = if restored.is_empty() {
                        gettext("Measured. No profile was chosen before, so none was put back.")
                    } else {
                        i18n_f("Measured; {} is active again.", &[&name(&restored)])
                    };
                    notice(Notice::Text(text));
                }
                log::debug!("lab: done, restored {restored:?}");
            }
            End::Cancelled => {
                log::debug!("lab: cancelled, restored {restored:?}");
                let text = if restored.is_empty() {
                    gettext("Measurement cancelled.")
                } else {
                    i18n_f("Measurement cancelled; {} is active again.", &[&name(&restored)])
                };
                notice(Notice::Text(text));
            }
            End::Failed(err) => {
                log::debug!("lab: failed: {err:?}");
                notice(Notice::Error(ErrorView::from_client(&err)));
            }
            End::CommandFailed => {
                notice(Notice::Text(gettext("The command failed, so its runs cannot be compared.")));
            }
        }
    }

    /// Tells the window what the page shows, where it changed.
    fn tell(&mut self, sender: &ComponentSender<Self>) {
        self.state.estimate = Some(self.view.start_note()).filter(|n| !n.is_empty());
        if self.state != self.told {
            self.told = self.state.clone();
            let _ = sender.output(LabOut::State(self.state.clone()));
        }
    }

    /// Reads the kept measurements (off the main thread) for the list.
    fn list_kept(&self, sender: &ComponentSender<Self>) {
        let Some(dir) = lab::results_dir() else { return };
        sender.oneshot_command(async move {
            let kept = crate::ui::reader::blocking(move || {
                let kept = lab::listed(&dir);
                log::debug!("lab: {} kept in {}", kept.len(), dir.display());
                kept
            })
            .await
            .unwrap_or_default();
            LabCmd::Kept(kept)
        });
    }
}
