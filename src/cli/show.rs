//! The reading commands: status, detect, profile list/get, snapshot.

use std::path::Path;

use gearshift::core::identity::CoreType;
use gearshift::core::plan::PreferenceForm;
use gearshift::core::report::{HardwareReport, Level};
use gearshift::core::root::SysRoot;
use gearshift::core::snapshot::take_snapshot;
use gearshift::core::status::{describe_ranges, ActiveSource, PlatformLine, Status};
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::table::{mhz, or_dash, Table};
use super::{CliError, Context};

fn print_json<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::failed(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// The status report of the machine under the context's root.
pub fn build_status(ctx: &Context) -> Status {
    let resolver = ctx.resolver();
    // The profiles the helper knows: the administrator's declared ones too.
    let config = gearshift::core::config::Config::load(&ctx.root, &resolver);
    let mut status = Status::build(
        &ctx.root_arg,
        &resolver,
        &config.with_saved(&ctx.customs),
        ctx.helper_active.clone(),
        ctx.conflicts.clone(),
        &ctx.extra_problems,
    );
    status.mark_declared(&config);
    status.holds.clone_from(&ctx.helper_holds);
    // The rules from the configuration read above, and the person's file.
    let places = gearshift::client::agent::Places::of_session(ctx.root.base());
    let found = gearshift::client::agent::RulesFound::of_config(&config, &places);
    status.rules = found.rules.iter().map(|(rule, file)| gearshift::core::status::RuleLine::of(rule, file)).collect();
    status
}

/// `gearshift status`.
pub fn status(ctx: &Context, json: bool) -> Result<(), CliError> {
    let status = build_status(ctx);
    if json {
        print_json(&status)?;
    } else {
        print!("{}", render_status(&status));
    }
    ctx.check_problems()
}

fn yes(value: bool) -> String {
    if value {
        gettext("yes")
    } else {
        gettext("no")
    }
}

/// The human form of the status report.
pub fn render_status(s: &Status) -> String {
    let mut out = String::new();
    let cpu = &s.cpu;
    // Without a brand string the code name says what the CPU is.
    out.push_str(&cpu.model_name.clone().or_else(|| cpu.codename.clone()).unwrap_or_else(|| gettext("Unknown CPU")));
    out.push('\n');
    let mut facts = Table::headless(2);
    facts.row(vec![gettext("Model"), identity_line(cpu)]);
    facts.row(vec![gettext("CPUs"), cpus_line(s)]);
    let has_policies = s.cpus.iter().any(|c| c.policy.is_some());
    facts.row(vec![gettext("Driver"), driver_line(s, has_policies)]);
    if let Some(ranges) = describe_ranges(&s.frequency_ranges) {
        facts.row(vec![gettext("Frequency limits"), ranges]);
    }
    if let Some(platform) = &s.platform_profile {
        facts.row(vec![gettext("Platform profile"), describe_platform(platform, s.lap_mode)]);
    }
    if let Some(line) = dynamic_epp_line(s) {
        facts.row(vec![gettext("Dynamic EPP"), line]);
    }
    facts.row(vec![gettext("Kernel"), or_dash(s.kernel.clone())]);
    facts.row(vec![gettext("Profile"), profile_line(s)]);
    for hold in &s.holds {
        facts.row(vec![gettext("Held"), hold.sentence().localized()]);
    }
    for rule in &s.rules {
        facts.row(vec![gettext("Rule"), rule.sentence().localized()]);
    }
    if let Some(config) = &s.config {
        // Translators: the administrator's configuration files, then whether they lock switching.
        let mut line = config.files.join(", ");
        if config.locked {
            line.push_str(&gettext(" · switching and tuning locked"));
        }
        if !config.problems.is_empty() {
            line.push_str(&i18n_f(" · {} set aside (gearshift config check)", &[&config.problems.len()]));
        }
        facts.row(vec![gettext("Configuration"), line]);
    }
    for id in &s.conflict_programs {
        facts.row(vec![
            gettext("Conflict"),
            // Translators: {program} is another power manager; {fix} a command or an instruction.
            i18n_text("{program} also manages power here. To resolve: {fix}")
                .arg("program", id)
                .arg("fix", gearshift::core::conflicts::fix(id).localized())
                .localized(),
        ]);
    }
    out.push_str(&facts.render("  "));
    out.push('\n');
    if s.driver.is_none() && !has_policies && s.cpus.iter().all(|c| c.energy_perf_bias.is_none()) {
        out.push_str(&gettext("There is no CPU frequency control on this machine (no cpufreq driver; virtual machines usually leave it to the host), so there is nothing to tune. `gearshift detect` shows what was found."));
        out.push('\n');
        return out;
    }
    out.push_str(&render_profiles(s));
    out.push('\n');
    out.push_str(&render_cpus(s));
    out
}

/// The CPU's code name, family and model.
fn identity_line(cpu: &gearshift::core::status::CpuReport) -> String {
    match (&cpu.codename, cpu.family, cpu.model) {
        // Translators: A CPU code name, its CPUID family and model, and the model in hex.
        (Some(code), Some(f), Some(m)) => i18n_text("{codename} · family {family} model {model} (0x{hex})")
            .arg("codename", code)
            .arg("family", f)
            .arg("model", m)
            .arg("hex", format!("{m:02X}"))
            .localized(),
        // Translators: CPUID family and model, and the model in hex.
        (None, Some(f), Some(m)) => i18n_text("family {family} model {model} (0x{hex}), not in the model table")
            .arg("family", f)
            .arg("model", m)
            .arg("hex", format!("{m:02X}"))
            .localized(),
        _ => gettext("unknown family and model"),
    }
}

/// How many CPUs are online and offline, and of which kinds.
fn cpus_line(s: &Status) -> String {
    let cpu = &s.cpu;
    let online = s.cpus.iter().filter(|c| c.online).count();
    // Translators: A count of CPUs, then the kernel's list of them ("0-7").
    let mut cores = i18n_text("{online} online ({list})").arg("online", online).arg("list", &s.online).localized();
    if !s.offline.is_empty() {
        cores.push_str(&i18n_f(", offline: {}", &[&s.offline]));
    }
    if let (Some(p), Some(e)) = (cpu.performance_cores, cpu.efficiency_cores) {
        cores.push_str(
            // Translators: Counts of CPUs.
            &i18n_text(" · {performance} on P-cores, {efficiency} on E-cores")
                .arg("performance", p)
                .arg("efficiency", e)
                .localized(),
        );
    }
    cores
}

/// The driver, its mode, whether it takes EPP and turbo.
fn driver_line(s: &Status, has_policies: bool) -> String {
    let driver = match (&s.driver, &s.mode) {
        // Translators: A cpufreq driver's name and its mode ("active", "passive").
        (Some(d), Some(m)) => i18n_text("{driver} ({mode} mode)").arg("driver", d).arg("mode", m).localized(),
        (Some(d), None) => d.clone(),
        // Policies without the file that names their driver: a partial snapshot.
        (None, _) if has_policies => gettext("unknown"),
        (None, _) => gettext("none: no CPU frequency control"),
    };
    let mut driver_line = driver;
    driver_line.push_str(&i18n_f(" · EPP: {}", &[&yes(s.epp_supported)]));
    if let Some(turbo) = s.turbo {
        driver_line.push_str(&i18n_f(" · turbo: {}", &[&if turbo { gettext("on") } else { gettext("off") }]));
    }
    driver_line
}

/// The profile in effect, and the profiles that set the same here.
fn profile_line(s: &Status) -> String {
    let mut active = match (&s.active_profile, s.active_profile_source) {
        (Some(id), Some(ActiveSource::Settings)) => i18n_f("{} (the current settings match it)", &[id]),
        (Some(id), _) if id == gearshift::core::kernel_own::KERNEL_OWN => {
            // Translators: {} is the id "kernel".
            i18n_f("{} (the kernel's own values: Gearshift applies no profile until you choose one)", &[id])
        }
        (Some(id), _) => id.clone(),
        (None, _) => gettext("none (the current settings match no profile)"),
    };
    if let Some(same) = s.active_profile.as_deref().map(|id| s.same_here(id)).filter(|same| !same.is_empty()) {
        // Translators: {profiles} names profiles that set the same values here ("Efficient").
        active.push_str(&i18n_text(" · the same here: {profiles}").arg("profiles", same.join(", ")).localized());
    }
    active
}

/// The firmware's platform profile in a line: what it is now, what it
/// offers, where it is written, and the lap sensor where there is one.
pub fn describe_platform(platform: &PlatformLine, lap_mode: Option<bool>) -> String {
    // Where it is written, in words: "legacy" is the one ACPI file older
    // kernels have, "class:NAME" a device of the kernel's platform-profile
    // class (6.14 and later), named by its driver.
    let interfaces: Vec<String> = platform
        .interfaces
        .iter()
        .map(|i| match i.strip_prefix("class:") {
            // Translators: {name} is a firmware driver's device, such as "platform-profile-0".
            Some(name) => i18n_text("the firmware driver's {name}").arg("name", name).localized(),
            None => gettext("the ACPI file /sys/firmware/acpi/platform_profile"),
        })
        .collect();
    // Translators: {current} is a platform profile name ("balanced"), {choices} the names offered, {interfaces} where it is written.
    // The legacy file's (and Gearshift's) `custom` where the handlers show
    // different profiles: not a profile of its own.
    let handlers = platform.interfaces.iter().filter(|i| i.starts_with("class:")).count();
    let current = match platform.current.as_deref() {
        Some("custom") if handlers > 1 => gettext("the handlers differ"),
        Some(name) => name.to_owned(),
        None => "—".to_owned(),
    };
    let mut line = i18n_text("{current} (offers {choices}; set through {interfaces})")
        .arg("current", current)
        .arg("choices", &platform.offers)
        .arg("interfaces", interfaces.join(", "))
        .localized();
    if lap_mode == Some(true) {
        line.push_str(&gettext(" · on a lap: the firmware limits performance"));
    }
    line
}

/// amd-pstate's dynamic EPP (Linux 7.1), where the kernel has the switch:
/// what it means for the profiles, and what the person can do.
pub fn dynamic_epp_line(s: &Status) -> Option<String> {
    let on = s.dynamic_epp?;
    if !on {
        return Some(gettext("off (EPP is Gearshift's to set)"));
    }
    let cpus = s.cpu_platform_profiles.as_ref().map(|c| c.cpus.len()).unwrap_or(0);
    // Translators: {cpus} is a number of CPUs; {current} a platform profile name; {command} a shell command.
    Some(
        i18n_text("on: the kernel sets EPP itself (Balanced and Efficient: 0 on AC, 128 on battery; Power Saver 255; Performance 0) and refuses other values. Gearshift switches the platform profile of each CPU ({cpus}, now {current}). Custom EPP values need it off: {command}")
            .arg("cpus", cpus)
            .arg(
                "current",
                s.cpu_platform_profiles.as_ref().and_then(|c| c.current.clone()).unwrap_or_else(|| "—".to_owned()),
            )
            .arg("command", gearshift::core::profile::DYNAMIC_EPP_OFF)
            .localized(),
    )
}

/// The profiles table.
pub fn render_profiles(s: &Status) -> String {
    let bias = s.preference_form == PreferenceForm::Bias;
    let platform = s.platform_profile.is_some();
    let mut header = vec![
        gettext("Profile"),
        gettext("Name"),
        gettext("EPP"),
        gettext("Written as"),
        gettext("Governor"),
        gettext("Kernel's own EPP"),
    ];
    if platform {
        header.push(gettext("Platform"));
    }
    let mut t = Table::new(&header).right(2).right(5);
    for p in &s.profiles {
        let epp = if p.epp_values.len() > 1 {
            p.epp_values.iter().map(u8::to_string).collect::<Vec<_>>().join("/")
        } else {
            or_dash(p.epp)
        };
        let written = match &p.error {
            Some(err) => i18n_f("unusable here: {}", &[err]),
            None if bias => p.written_as.as_ref().map_or_else(|| "—".to_owned(), |b| i18n_f("bias {}", &[b])),
            None => or_dash(p.written_as.clone()),
        };
        let mut row =
            vec![p.id.clone(), p.title().localized(), epp, written, or_dash(p.governor.clone()), or_dash(p.kernel_epp)];
        if platform {
            row.push(or_dash(p.platform_profile.clone()));
        }
        t.row(row);
    }
    let mut out = t.render("");
    if s.preference_form == PreferenceForm::KernelDynamic {
        out.push_str(&gettext("EPP: the number each profile gives this CPU (0 fastest, 255 most frugal; — where the kernel's dynamic EPP picks it by the power source). Written as: what Gearshift writes to each CPU's platform profile, since the kernel refuses EPP writes while dynamic EPP is on. Kernel's own EPP: what this kernel itself uses for the same name."));
    } else {
        out.push_str(&gettext("EPP: the number each profile gives this CPU (0 fastest, 255 most frugal). Written as: what Gearshift writes to energy_performance_preference, the number or a name the kernel takes for it. Kernel's own EPP: what this kernel itself uses for the same name."));
    }
    out.push('\n');
    for p in &s.profiles {
        if let Some(file) = &p.declared_in {
            // Translators: {id} is a profile id, {file} the configuration file that declares it.
            out.push_str(
                &i18n_text("{id} is declared by your administrator in {file}; it can be used, not changed.")
                    .arg("id", &p.id)
                    .arg("file", file)
                    .localized(),
            );
            out.push('\n');
        }
    }
    out
}

fn render_cpus(s: &Status) -> String {
    let hybrid = s.cpu.hybrid;
    let mut header = vec![gettext("CPU")];
    if hybrid {
        header.push(gettext("Type"));
    }
    header.extend([gettext("Online"), gettext("Governor"), gettext("EPP"), gettext("MHz"), gettext("Min–max MHz")]);
    let mut t = Table::new(&header).right(0);
    for c in &s.cpus {
        let mut row = vec![c.id.to_string()];
        if hybrid {
            row.push(match c.core_type {
                Some(CoreType::Performance) => gettext("P"),
                Some(CoreType::Efficiency) => gettext("E"),
                None => "—".to_owned(),
            });
        }
        let epp = match (&c.epp, c.epp_value) {
            // The number first; the kernel's name beside it where it
            // printed one (`EppReading::shown`).
            (Some(text), Some(v)) if *text != v.to_string() => format!("{v} ({text})"),
            (Some(text), _) => text.clone(),
            (None, _) => c.energy_perf_bias.map_or_else(|| "—".to_owned(), |b| i18n_f("bias {}", &[&b])),
        };
        let range = match (c.min_khz, c.max_khz) {
            (None, None) => "—".to_owned(),
            (lo, hi) => format!("{}–{}", mhz(lo), mhz(hi)),
        };
        row.extend([yes(c.online), or_dash(c.governor.clone()), epp, mhz(c.cur_khz), range]);
        t.row(row);
    }
    t.render("")
}

/// `gearshift detect`.
pub fn detect(ctx: &Context, json: bool) -> Result<(), CliError> {
    let report = HardwareReport::build(&ctx.resolver());
    if json {
        print_json(&report)?;
    } else {
        print!("{}", render_report(&report));
    }
    ctx.check_problems()
}

/// The human form of the hardware report.
pub fn render_report(report: &HardwareReport) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let mark = match f.level {
            Level::Good => "✓",
            Level::Warning => "!",
            Level::Info => "·",
        };
        out.push_str(&format!(
            "{mark} {}\n    {}\n",
            // Translators: A label and its value.
            i18n_text("{label}: {value}")
                .arg("label", f.label.localized())
                .arg("value", f.value.localized())
                .localized(),
            f.detail.localized()
        ));
    }
    out.push('\n');
    if report.can_tune {
        let mut t = Table::new(&[gettext("Profile"), gettext("Gearshift's EPP"), gettext("This kernel's EPP")])
            .right(1)
            .right(2);
        for c in &report.changes {
            t.row(vec![
                format!("{} ({})", c.name.localized(), c.profile),
                or_dash(c.gearshift_epp),
                or_dash(c.kernel_epp),
            ]);
        }
        out.push_str(&t.render(""));
        out.push('\n');
    } else if let Some(why) = &report.why_not {
        out.push_str(&why.localized());
        out.push_str("\n\n");
    }
    out.push_str(&report.summary.localized());
    out.push('\n');
    out
}

/// `gearshift profile list`.
pub fn profile_list(ctx: &Context, json: bool) -> Result<(), CliError> {
    let status = build_status(ctx);
    if json {
        print_json(&status.profiles)?;
    } else {
        print!("{}", render_profiles(&status));
    }
    ctx.check_problems()
}

/// `gearshift profile get`.
pub fn profile_get(ctx: &Context, json: bool) -> Result<(), CliError> {
    let status = build_status(ctx);
    if json {
        print_json(&serde_json::json!({
            "active_profile": status.active_profile,
            "source": status.active_profile_source,
        }))?;
    } else {
        match &status.active_profile {
            Some(id) => println!("{id}"),
            None => println!("{}", gettext("none (the current settings match no profile)")),
        }
    }
    ctx.check_problems()
}

/// `gearshift mode`: the driver, its mode and the modes it takes.
pub fn mode(ctx: &Context, json: bool) -> Result<(), CliError> {
    let status = build_status(ctx);
    if json {
        print_json(&serde_json::json!({
            "driver": status.driver,
            "mode": status.mode,
            "modes": status.modes,
        }))?;
    } else {
        let driver = status.driver.clone().unwrap_or_else(|| gettext("no cpufreq driver"));
        match &status.mode {
            // Translators: a cpufreq driver's name, its mode, and the modes it can be switched to.
            Some(mode) if !status.modes.is_empty() => println!(
                "{}",
                i18n_text("{driver}: {mode} mode (it takes {modes}; switch with `gearshift mode set MODE`)")
                    .arg("driver", &driver)
                    .arg("mode", mode)
                    .arg("modes", status.modes.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "))
                    .localized()
            ),
            // Translators: a cpufreq driver's name and its mode.
            Some(mode) => {
                println!("{}", i18n_text("{driver}: {mode} mode").arg("driver", &driver).arg("mode", mode).localized())
            }
            None if status.driver.is_none() => {
                println!("{}", gettext("No cpufreq driver runs here, so there is no mode to switch."));
            }
            None => println!("{}", i18n_f("{}: this driver has no modes", &[&driver])),
        }
    }
    ctx.check_problems()
}

/// `gearshift snapshot OUTDIR`.
pub fn snapshot(root: Option<&Path>, out: &Path) -> Result<(), CliError> {
    let root = match root {
        Some(dir) => SysRoot::open(dir).map_err(|e| CliError::input(e.localized()))?,
        None => SysRoot::live(),
    };
    let summary = take_snapshot(&root, out).map_err(|e| match e {
        // The person named the wrong directory: bad usage, as exit 2 says.
        // Translators: {dir} is a directory.
        gearshift::core::snapshot::SnapshotError::NotEmpty(dir) => CliError::input(
            i18n_text("{dir} is not empty: give a new or empty directory for the snapshot")
                .arg("dir", dir.display())
                .localized(),
        ),
        other => CliError::failed(other.to_string()),
    })?;
    println!(
        "{}",
        // Translators: Counts, then a directory (twice).
        i18n_text("Wrote {files} files and {links} links to {dir}. Read it back with: gearshift --root {dir} status")
            .arg("files", summary.files)
            .arg("links", summary.links)
            .arg("dir", out.display())
            .localized()
    );
    if !summary.skipped.is_empty() {
        let mut message = gettext("These files could not be copied:");
        for p in &summary.skipped {
            message.push_str("\n  ");
            message.push_str(&p.to_string());
        }
        return Err(CliError::input(message));
    }
    Ok(())
}
