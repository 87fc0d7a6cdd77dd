//! The window's actions and their keyboard accelerators, type-safe through
//! Relm4's `RelmAction`. The profile shortcuts are built from
//! [`BuiltinProfile::ALL`]: Ctrl+1 is the first profile, and so on.

use relm4::actions::{AccelsPlus, ActionName, RelmAction, RelmActionGroup};
use relm4::adw::{self, prelude::*};
use relm4::gtk::{self, gio};
use relm4::Sender;

use gearshift::core::profile::BuiltinProfile;

use super::msg::AppMsg;

relm4::new_action_group!(pub WindowActions, "win");
relm4::new_stateless_action!(pub RefreshAction, WindowActions, "refresh");
relm4::new_stateless_action!(pub LastErrorAction, WindowActions, "last-error");
relm4::new_stateless_action!(pub UndoAction, WindowActions, "undo");
relm4::new_stateless_action!(pub AboutAction, WindowActions, "about");
relm4::new_stateless_action!(pub WizardAction, WindowActions, "wizard");
relm4::new_stateless_action!(pub PreferencesAction, WindowActions, "preferences");
relm4::new_stateless_action!(pub ShortcutsAction, WindowActions, "show-help-overlay");
relm4::new_stateless_action!(pub OverviewPageAction, WindowActions, "page-overview");
relm4::new_stateless_action!(pub CoresPageAction, WindowActions, "page-cores");
relm4::new_stateless_action!(pub TuningPageAction, WindowActions, "page-tuning");
relm4::new_stateless_action!(pub EfficiencyPageAction, WindowActions, "page-efficiency");
// `win.profile::ID`: switch to a built-in profile.
relm4::new_stateful_action!(pub ProfileAction, WindowActions, "profile", String, ());

/// Adds the window's actions to `window` and their accelerators to the
/// application.
pub fn install(window: &adw::ApplicationWindow, input: &Sender<AppMsg>) {
    let mut group = RelmActionGroup::<WindowActions>::new();
    let stateless = |msg: fn() -> AppMsg| {
        let input = input.clone();
        move |_: &gio::SimpleAction| input.emit(msg())
    };
    group.add_action(RelmAction::<RefreshAction>::new_stateless(stateless(|| AppMsg::Refresh)));
    group.add_action(RelmAction::<LastErrorAction>::new_stateless(stateless(|| AppMsg::LastError)));
    group.add_action(RelmAction::<UndoAction>::new_stateless(stateless(|| AppMsg::Undo)));
    group.add_action(RelmAction::<AboutAction>::new_stateless(stateless(|| AppMsg::About)));
    group.add_action(RelmAction::<WizardAction>::new_stateless(stateless(|| AppMsg::Wizard)));
    group.add_action(RelmAction::<PreferencesAction>::new_stateless(stateless(|| AppMsg::Preferences)));
    group.add_action(RelmAction::<ShortcutsAction>::new_stateless(stateless(|| AppMsg::Shortcuts)));
    group.add_action(RelmAction::<OverviewPageAction>::new_stateless(stateless(|| AppMsg::Page("overview"))));
    group.add_action(RelmAction::<CoresPageAction>::new_stateless(stateless(|| AppMsg::Page("cores"))));
    group.add_action(RelmAction::<TuningPageAction>::new_stateless(stateless(|| AppMsg::Page("tuning"))));
    group.add_action(RelmAction::<EfficiencyPageAction>::new_stateless(stateless(|| AppMsg::Page("efficiency"))));
    let input = input.clone();
    group.add_action(RelmAction::<ProfileAction>::new_with_target_value(move |_, id: String| {
        if let Some(profile) = BuiltinProfile::from_id(&id) {
            input.emit(AppMsg::Switch(profile.into()));
        }
    }));
    group.register_for_widget(window);

    let Some(app) = relm4::main_application().downcast_ref::<gtk::Application>().cloned() else { return };
    let quit = gio::SimpleAction::new("quit", None);
    let weak = app.downgrade();
    quit.connect_activate(move |_, _| {
        if let Some(app) = weak.upgrade() {
            app.quit();
        }
    });
    app.add_action(&quit);
    app.set_accels_for_action("app.quit", &["<Control>q"]);
    app.set_accelerators_for_action::<RefreshAction>(&["F5", "<Control>r"]);
    app.set_accelerators_for_action::<ShortcutsAction>(&["<Control>question"]);
    app.set_accelerators_for_action::<PreferencesAction>(&["<Control>comma"]);
    // F1 is help in GNOME applications; Gearshift has no help pages, so F1
    // stays unbound rather than opening About.
    app.set_accelerators_for_action::<OverviewPageAction>(&["<Alt>1"]);
    app.set_accelerators_for_action::<CoresPageAction>(&["<Alt>2"]);
    app.set_accelerators_for_action::<TuningPageAction>(&["<Alt>3"]);
    app.set_accelerators_for_action::<EfficiencyPageAction>(&["<Alt>4"]);
    for (i, profile) in BuiltinProfile::ALL.into_iter().enumerate() {
        app.set_accels_for_action(&profile_action(profile), &[&format!("<Control>{}", i + 1)]);
    }
}

/// The detailed action name that switches to `profile` (`win.profile::power`).
pub fn profile_action(profile: BuiltinProfile) -> String {
    format!("{}::{}", ProfileAction::action_name(), profile.id())
}
