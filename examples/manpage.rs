//! Writes gearshift(1) from the command line's own definition (meson runs
//! this at build time): `cargo run --example manpage -- OUT`. One page: the
//! main options, then a section per subcommand with its own options.

// The definition only; parsing is the program's.
#[path = "../src/cli/args.rs"]
#[allow(dead_code)]
mod args;
// The values it checks, as `args` finds them (`super::values`).
#[path = "../src/cli/values.rs"]
#[allow(dead_code)]
mod values;

use std::io::Write;

fn roff_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('-', "\\-")
}

fn render(command: &clap::Command) -> std::io::Result<Vec<u8>> {
    let mut page = Vec::new();
    let man = clap_mangen::Man::new(command.clone()).section("1").manual("Gearshift");
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let leaves: Vec<(String, clap::Command)> = if sub.has_subcommands() {
            sub.get_subcommands()
                .filter(|s| s.get_name() != "help")
                .map(|s| (format!("{} {}", sub.get_name(), s.get_name()), s.clone()))
                .collect()
        } else {
            vec![(sub.get_name().to_owned(), sub.clone())]
        };
        for (name, leaf) in leaves {
            writeln!(page, ".SH \"GEARSHIFT {}\"", roff_escape(&name.to_uppercase()))?;
            if let Some(about) = leaf.get_about() {
                writeln!(page, "{}", roff_escape(&about.to_string()))?;
            }
            let usage = leaf.clone().bin_name(format!("gearshift {name}")).render_usage().to_string();
            writeln!(page, ".PP\n{}", roff_escape(usage.trim_start_matches("Usage: ")))?;
            if leaf.get_arguments().any(|a| !a.is_hide_set() && a.get_id() != "help") {
                clap_mangen::Man::new(leaf).render_options_section(&mut page)?;
            }
        }
    }
    if let Some(after) = command.get_after_help() {
        writeln!(page, ".SH EXAMPLES")?;
        for line in after.to_string().lines() {
            writeln!(page, "{}\n.br", roff_escape(line))?;
        }
    }
    man.render_version_section(&mut page)?;
    Ok(page)
}

fn main() -> std::process::ExitCode {
    let Some(out) = std::env::args_os().nth(1) else {
        eprintln!("usage: manpage OUT");
        return std::process::ExitCode::from(2);
    };
    match render(&args::command()).and_then(|page| std::fs::write(&out, page)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("manpage: cannot write {}: {err}", std::path::Path::new(&out).display());
            std::process::ExitCode::from(1)
        }
    }
}
