//! Compiles the GSettings schema (data/*.gschema.xml) for the window, so
//! that a run from the source tree finds it without an install: the
//! compiled file is built into the program (src/settings.rs) and left in
//! `$OUT_DIR/schemas` for the tests. See docs/settings.md.

use std::path::PathBuf;
use std::process::Command;

const SCHEMA: &str = "data/io.github.gearshift.Gearshift.gschema.xml";

fn main() {
    // Relative relocations packed (DT_RELR: glibc 2.36, binutils 2.38; Debian
    // 12, Ubuntu 24.04, Fedora and Arch have both): the loader reads a few
    // KiB instead of the whole 1.2 MiB .rela.dyn of the debug build (a
    // fifth of that in the release build) at every start, which every
    // process of ours kept resident (the tray's budget, docs/performance.md).
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo::rerun-if-changed={SCHEMA}");
    println!("cargo::rerun-if-env-changed=CARGO_FEATURE_GUI");
    if std::env::var_os("CARGO_FEATURE_GUI").is_none() {
        // The helper and the headless command line have no settings.
        return;
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("schemas");
    std::fs::create_dir_all(&out).expect("OUT_DIR is writable");
    std::fs::copy(SCHEMA, out.join("io.github.gearshift.Gearshift.gschema.xml")).expect("the schema is readable");
    let status = Command::new("glib-compile-schemas").arg("--strict").arg(&out).status();
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("glib-compile-schemas rejected {SCHEMA} ({status})"),
        Err(err) => panic!(
            "glib-compile-schemas cannot run ({err}): it comes with GLib (Debian and Ubuntu: libglib2.0-bin, which libgtk-4-dev pulls in)"
        ),
    }
}
