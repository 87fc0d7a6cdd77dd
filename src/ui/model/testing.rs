//! Fixture snapshots for the view models' tests.

use std::path::PathBuf;

use gearshift::core::status::Status;

use crate::context::Context;

/// The status of a fixture snapshot.
pub fn status(fixture: &str) -> Status {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
    let ctx = Context::load_without_helper(Some(&dir)).unwrap();
    Status::build("x", &ctx.resolver(), &ctx.customs, None, Vec::new(), &[])
}

/// The machine of a fixture snapshot.
pub fn machine(fixture: &str) -> gearshift::core::machine::Machine {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
    Context::load_without_helper(Some(&dir)).unwrap().machine
}

/// The hardware report of a fixture snapshot.
pub fn report(fixture: &str) -> gearshift::core::report::HardwareReport {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture);
    let ctx = Context::load_without_helper(Some(&dir)).unwrap();
    gearshift::core::report::HardwareReport::build(&ctx.resolver())
}
