//! The Rules page: what holds the profile now and why, the rules that
//! follow programs ("while PROGRAM runs, hold PROFILE", docs/rules.md), a
//! form to add one (an installed application, or any program by its
//! executable's name), and who decides while the administrator's lock is
//! on.
//!
//! The person's rules live in `~/.config/gearshift/rules.toml`, written
//! here (`client::agent::write_own_rules`) and followed by the per-user
//! agent, which hears the file change. The first rule added enables the
//! agent's user unit (`systemctl --user enable --now gearshift-agent`).

use relm4::adw::{self, prelude::*};
use relm4::gtk::{self, gio};
use relm4::{Component, ComponentParts, ComponentSender};

use gearshift::client::agent::{own_rules, write_own_rules, Places, RulesFound};
use gearshift::client::session::Hold;
use gearshift::core::panel::PanelProfile;
use gearshift::core::rules::{is_app_id, is_program_name, Rule};
use gearshift::core::status::RuleLine;
use gearshift::i18n::{gettext, i18n_text};

use crate::context::Context;
use crate::ui::model::Notice;

/// The user unit of the agent that follows the rules.
pub const AGENT_UNIT: &str = "gearshift-agent.service";

/// What the page is told, by the window and by its own widgets.
#[derive(Debug)]
pub enum RulesMsg {
    /// What holds a profile now (the session's).
    Holds(Vec<Hold>),
    /// The administrator's lock now (its file): the rules are read again.
    Locked(Option<String>),
    /// The application chosen in the form changed.
    Chosen,
    /// The form's Add.
    Add,
    /// Remove this rule of the person's.
    Remove(Rule),
}

/// What the page tells the window.
#[derive(Debug)]
pub enum RulesOut {
    /// Something to tell the person.
    Notice(Notice),
}

/// An installed application a rule can name.
#[derive(Debug, Clone)]
struct App {
    name: String,
    id: String,
}

/// The page.
pub struct RulesPage {
    places: Places,
    ctx: Context,
    holds: Vec<Hold>,
    locked_by: Option<String>,
    /// The person's rules, as in their file.
    own: Vec<Rule>,
    apps: Vec<App>,
    held_group: adw::PreferencesGroup,
    held_rows: Vec<gtk::Widget>,
    rules_group: adw::PreferencesGroup,
    rule_rows: Vec<gtk::Widget>,
    add_group: adw::PreferencesGroup,
    app_row: adw::ComboRow,
    program_row: adw::EntryRow,
    profile_row: adw::ComboRow,
    add_button: gtk::Button,
}

/// The profiles a rule holds, in the form's order.
const PROFILES: [PanelProfile; 2] = [PanelProfile::Performance, PanelProfile::PowerSaver];

impl Component for RulesPage {
    type CommandOutput = Result<(), String>;
    type Input = RulesMsg;
    type Output = RulesOut;
    type Init = Context;
    type Root = adw::PreferencesPage;
    type Widgets = ();

    fn init_root() -> Self::Root {
        adw::PreferencesPage::new()
    }

    fn init(ctx: Context, root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let held_group = adw::PreferencesGroup::builder()
            .title(gettext("Held Now"))
            .description(gettext("A hold keeps a profile while something runs; Power Saver wins over Performance."))
            .build();
        root.add(&held_group);
        let rules_group = adw::PreferencesGroup::builder()
            .title(gettext("Rules"))
            .description(gettext("While a program runs, its rule holds a profile; when it ends, your choice is back."))
            .build();
        root.add(&rules_group);
        let add_group = adw::PreferencesGroup::builder().title(gettext("Add a Rule")).build();
        root.add(&add_group);

        let apps = installed_apps();
        let mut names = vec![gettext("Any program, by its executable’s name")];
        names.extend(apps.iter().map(|a| a.name.clone()));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let app_row = adw::ComboRow::builder()
            .title(gettext("Application"))
            .model(&gtk::StringList::new(&names))
            .use_subtitle(true)
            .build();
        let program_row = adw::EntryRow::builder().title(gettext("Executable name")).build();
        let titles: Vec<String> = PROFILES.iter().map(|p| p.title().localized()).collect();
        let titles: Vec<&str> = titles.iter().map(String::as_str).collect();
        let profile_row =
            adw::ComboRow::builder().title(gettext("Profile")).model(&gtk::StringList::new(&titles)).build();
        let add = gtk::Button::builder()
            .label(gettext("Add Rule"))
            .halign(gtk::Align::End)
            .margin_top(12)
            .css_classes(["suggested-action", "pill"])
            .build();
        add_group.add(&app_row);
        add_group.add(&program_row);
        add_group.add(&profile_row);
        add_group.add(&add);
        {
            let input = sender.input_sender().clone();
            app_row.connect_selected_notify(move |_| input.emit(RulesMsg::Chosen));
            let input = sender.input_sender().clone();
            add.connect_clicked(move |_| input.emit(RulesMsg::Add));
            let input = sender.input_sender().clone();
            program_row.connect_entry_activated(move |_| input.emit(RulesMsg::Add));
        }

        let mut page = RulesPage {
            places: Places::of_session(ctx.root.base()),
            ctx,
            holds: Vec::new(),
            locked_by: None,
            own: Vec::new(),
            apps,
            held_group,
            held_rows: Vec::new(),
            rules_group,
            rule_rows: Vec::new(),
            add_group,
            app_row,
            program_row,
            profile_row,
            add_button: add,
        };
        page.show_holds();
        page.show_rules(&sender);
        ComponentParts { model: page, widgets: () }
    }

    fn update(&mut self, msg: RulesMsg, sender: ComponentSender<Self>, _root: &Self::Root) {
        match msg {
            RulesMsg::Holds(holds) => {
                if holds != self.holds {
                    self.holds = holds;
                    self.show_holds();
                }
            }
            RulesMsg::Locked(locked_by) => {
                if locked_by != self.locked_by {
                    self.locked_by = locked_by;
                    self.show_rules(&sender);
                }
            }
            RulesMsg::Chosen => {
                // An application is named by its id: the name is for any
                // other program.
                self.program_row.set_sensitive(self.locked_by.is_none() && self.app_row.selected() == 0);
            }
            RulesMsg::Add => self.add(&sender),
            RulesMsg::Remove(removed) => {
                // The file as it is now: an edit by hand since it was shown
                // is kept.
                let Some(mut rules) = self.current(&sender) else { return };
                let Some(at) = rules.iter().position(|r| *r == removed) else {
                    self.show_rules(&sender);
                    return;
                };
                rules.remove(at);
                if self.save(&sender, &rules) {
                    let what = gearshift::core::rules::following(removed.program.as_deref(), removed.app_id.as_deref());
                    // Translators: {what} is a program's name or an application id.
                    let text = i18n_text("Removed the rule for {what}").arg_text("what", what).localized();
                    let _ = sender.output(RulesOut::Notice(Notice::Text(text)));
                }
            }
        }
    }

    fn update_cmd(&mut self, started: Result<(), String>, sender: ComponentSender<Self>, _root: &Self::Root) {
        let text = match started {
            Ok(()) => gettext("Rules are followed from now on: the rules agent runs, and starts with your session."),
            // Translators: {error} is what systemctl said; {command} the command that starts the agent.
            Err(error) => {
                i18n_text("The rule is saved, but the rules agent did not start ({error}). Start it with {command}")
                    .arg("error", error)
                    .arg("command", format!("systemctl --user enable --now {AGENT_UNIT}"))
                    .localized()
            }
        };
        let _ = sender.output(RulesOut::Notice(Notice::Text(text)));
    }
}

impl RulesPage {
    /// Shows what holds a profile now, each with its holder's reason.
    fn show_holds(&mut self) {
        for row in self.held_rows.drain(..) {
            self.held_group.remove(&row);
        }
        let sentences: Vec<String> = if self.holds.is_empty() {
            vec![gettext("Nothing holds a profile now")]
        } else {
            self.holds.iter().map(|h| h.sentence().localized()).collect()
        };
        for sentence in sentences {
            let row = adw::ActionRow::builder().use_markup(false).title(&sentence).title_lines(0).build();
            crate::ui::read_only_row(&row);
            self.held_group.add(&row);
            self.held_rows.push(row.upcast());
        }
    }

    /// Reads the rules again and shows them: the administrator's (not
    /// removable here), then the person's, off while the lock is on.
    fn show_rules(&mut self, sender: &ComponentSender<Self>) {
        for row in self.rule_rows.drain(..) {
            self.rules_group.remove(&row);
        }
        let config = gearshift::core::config::Config::load(&self.ctx.root, &self.ctx.resolver());
        let found = RulesFound::of_config(&config, &self.places);
        let own_file = self.places.rules_file();
        let mut rows: Vec<adw::ActionRow> = Vec::new();
        if let Some(file) = &found.locked_by {
            // Translators: {file} is the administrator's configuration file.
            let text = i18n_text("Your administrator decides: only the rules in {file} apply, and your own are off.")
                .arg("file", file.display())
                .localized();
            rows.push(adw::ActionRow::builder().use_markup(false).title(text).title_lines(0).build());
        }
        for (rule, file) in found.rules.iter().filter(|(_, file)| *file != own_file) {
            // Translators: {file} is the administrator's configuration file.
            let by = i18n_text("Set by your administrator in {file}").arg("file", file.display()).localized();
            rows.push(
                adw::ActionRow::builder().use_markup(false).title(self.sentence(rule, file)).subtitle(by).build(),
            );
        }
        self.own = match own_rules(&self.places) {
            Ok(own) => own,
            Err(why) => {
                // Translators: {file} is the person's rules file, {why} what is wrong with it.
                let text =
                    i18n_text("{file} is set aside: {why}").arg("file", own_file.display()).arg("why", why).localized();
                rows.push(adw::ActionRow::builder().use_markup(false).title(text).title_lines(0).build());
                Vec::new()
            }
        };
        for row in &rows {
            crate::ui::read_only_row(row);
        }
        let locked = found.locked_by.is_some();
        for rule in &self.own {
            let row = adw::ActionRow::builder().use_markup(false).title(self.sentence(rule, &own_file)).build();
            if locked {
                row.set_subtitle(&gettext("Off while your administrator decides"));
            }
            let what = gearshift::core::rules::following(rule.program.as_deref(), rule.app_id.as_deref());
            // Translators: {what} is a program's name or an application id.
            let label = i18n_text("Remove the rule for {what}").arg_text("what", what).localized();
            let remove = gtk::Button::builder()
                .icon_name("user-trash-symbolic")
                .valign(gtk::Align::Center)
                .tooltip_text(&label)
                .css_classes(["flat"])
                .build();
            crate::ui::set_accessible_label(&remove, &label);
            let input = sender.input_sender().clone();
            let rule = rule.clone();
            remove.connect_clicked(move |_| input.emit(RulesMsg::Remove(rule.clone())));
            row.add_suffix(&remove);
            rows.push(row);
        }
        if rows.is_empty() {
            let row = adw::ActionRow::builder().use_markup(false).title(gettext("No rules yet")).build();
            crate::ui::read_only_row(&row);
            rows.push(row);
        }
        for row in rows {
            self.rules_group.add(&row);
            self.rule_rows.push(row.upcast());
        }
        // Under the lock a person's rules would not apply: no form (each
        // control says so to assistive technologies itself).
        self.app_row.set_sensitive(!locked);
        self.program_row.set_sensitive(!locked && self.app_row.selected() == 0);
        self.profile_row.set_sensitive(!locked);
        self.add_button.set_sensitive(!locked);
        self.add_group.set_description(
            locked.then(|| gettext("Your own rules are off while your administrator decides.")).as_deref(),
        );
    }

    /// A rule in words, an installed application by its name.
    fn sentence(&self, rule: &Rule, file: &std::path::Path) -> String {
        let mut line = RuleLine::of(rule, file);
        if let Some(app) = self.apps.iter().find(|a| Some(&a.id) == line.app_id.as_ref()) {
            line.app_id = Some(app.name.clone());
        }
        line.sentence().localized()
    }

    /// Adds the form's rule, where it is one.
    fn add(&mut self, sender: &ComponentSender<Self>) {
        let chosen = self.app_row.selected() as usize;
        let profile = PROFILES.get(self.profile_row.selected() as usize).copied().unwrap_or(PanelProfile::Performance);
        let rule = match chosen.checked_sub(1).and_then(|at| self.apps.get(at)) {
            Some(app) => Rule { program: None, app_id: Some(app.id.clone()), profile: profile.name().to_owned() },
            None => {
                let program = self.program_row.text().trim().to_owned();
                if !is_program_name(&program) {
                    let text = gettext("Name a program by its executable’s file name, such as blender or cargo.");
                    let _ = sender.output(RulesOut::Notice(Notice::Text(text)));
                    self.program_row.grab_focus();
                    return;
                }
                Rule { program: Some(program), app_id: None, profile: profile.name().to_owned() }
            }
        };
        // The file as it is now: an edit by hand since it was shown is kept,
        // and a file that cannot be read is not written over.
        let Some(mut rules) = self.current(sender) else { return };
        if rules.iter().any(|r| r.program == rule.program && r.app_id == rule.app_id) {
            let what = gearshift::core::rules::following(rule.program.as_deref(), rule.app_id.as_deref());
            // Translators: {what} is a program's name or an application id.
            let text = i18n_text("{what} has a rule already: remove it first to change it").arg_text("what", what);
            let _ = sender.output(RulesOut::Notice(Notice::Text(text.localized())));
            return;
        }
        let first = rules.is_empty();
        rules.push(rule.clone());
        if !self.save(sender, &rules) {
            return;
        }
        self.program_row.set_text("");
        let sentence = self.sentence(&rule, &self.places.rules_file());
        // Translators: {rule} is a rule in words ("while blender runs, Performance is held").
        let text = i18n_text("Added: {rule}").arg("rule", sentence).localized();
        let _ = sender.output(RulesOut::Notice(Notice::Text(text)));
        if first {
            sender.spawn_oneshot_command(enable_agent);
        }
    }

    /// The person's rules as their file holds them now; where it cannot be
    /// read or understood, says so, shows it, and gives nothing (so that it
    /// is not written over).
    fn current(&mut self, sender: &ComponentSender<Self>) -> Option<Vec<Rule>> {
        match own_rules(&self.places) {
            Ok(rules) => Some(rules),
            Err(why) => {
                // Translators: {file} is the person's rules file, {why} what is wrong with it.
                let text = i18n_text("{file} is set aside: {why}")
                    .arg("file", self.places.rules_file().display())
                    .arg("why", why)
                    .localized();
                let _ = sender.output(RulesOut::Notice(Notice::Text(text)));
                self.show_rules(sender);
                None
            }
        }
    }

    /// Writes the person's rules and shows them; says why where it cannot.
    fn save(&mut self, sender: &ComponentSender<Self>, rules: &[Rule]) -> bool {
        if let Err(err) = write_own_rules(&self.places, rules) {
            // Translators: {file} is the person's rules file, {error} why it could not be written.
            let text = i18n_text("The rules could not be saved in {file}: {error}")
                .arg("file", self.places.rules_file().display())
                .arg("error", err)
                .localized();
            let _ = sender.output(RulesOut::Notice(Notice::Text(text)));
            return false;
        }
        self.show_rules(sender);
        true
    }
}

/// The installed applications a desktop shows, by name, with their ids.
fn installed_apps() -> Vec<App> {
    let mut apps: Vec<App> = gio::AppInfo::all()
        .into_iter()
        .filter(gio::prelude::AppInfoExt::should_show)
        .filter_map(|info| {
            let id = info.id()?.strip_suffix(".desktop")?.to_owned();
            is_app_id(&id).then(|| App { name: info.display_name().to_string(), id })
        })
        .collect();
    apps.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then_with(|| a.id.cmp(&b.id)));
    apps.dedup_by(|a, b| a.id == b.id);
    apps
}

/// Enables and starts the agent's user unit (off the main loop).
fn enable_agent() -> Result<(), String> {
    let out = std::process::Command::new("systemctl")
        .args(["--user", "enable", "--now", AGENT_UNIT])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| err.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said: String = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(200).collect();
    Err(if said.is_empty() { out.status.to_string() } else { said })
}
