//! The model table: which EPP value each preference name means on each CPU
//! model, where the kernel learned it, and the codename to show.
//!
//! The built-in table is `data/cpu-models.toml`, embedded at build time.
//! Rows in `etc/gearshift/cpu-models.d/*.toml` under the root replace
//! built-in rows for the same vendor, family and model.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::identity::{CpuIdentity, Vendor};
use super::parse::{parse_kernel_version, EppName, KernelVersion};
use super::root::{Problem, SysRoot, MAX_ATTRIBUTE_BYTES};
use file::parse_table;

mod file;

/// The built-in table, as shipped.
pub const BUILTIN_TABLE: &str = include_str!("../../data/cpu-models.toml");

/// The directory (under the root) holding a user's extra rows.
pub const OVERRIDE_DIR: &str = "etc/gearshift/cpu-models.d";

/// The EPP value behind each of the four preference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EppValues {
    /// Value for `performance`.
    pub performance: u8,
    /// Value for `balance_performance`.
    pub balance_performance: u8,
    /// Value for `balance_power`.
    pub balance_power: u8,
    /// Value for `power`.
    pub power: u8,
}

impl EppValues {
    /// The value for a preference name (`default` has none of its own).
    pub fn get(&self, name: EppName) -> Option<u8> {
        match name {
            EppName::Performance => Some(self.performance),
            EppName::BalancePerformance => Some(self.balance_performance),
            EppName::BalancePower => Some(self.balance_power),
            EppName::Power => Some(self.power),
            EppName::Default => None,
        }
    }

    /// The name whose value is `value`, as the kernel prints it back.
    pub fn name_of(&self, value: u8) -> Option<EppName> {
        EppName::PROFILES.into_iter().find(|name| self.get(*name) == Some(value))
    }
}

/// A bad table (a malformed override file, or a broken build).
#[derive(Debug, Error)]
#[error("{file}: {what}")]
pub struct TableError {
    /// The file.
    pub file: String,
    /// What is wrong, naming the row or field.
    pub what: String,
}

/// What the CPU's maker measured for a model's own value against the
/// kernel's generic one (the efficiency lab shows it beside its result).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The benchmark ("Speedometer", "kernel build").
    pub benchmark: String,
    /// The model's balanced EPP it was measured at.
    pub epp: u8,
    /// The EPP it was measured against (the kernel's generic 128).
    pub against: u8,
    /// Work per joule, in per cent more (+5.25) or less.
    pub work_per_joule_pct: f64,
    /// Speed, in per cent more, where the maker gave it.
    #[serde(default)]
    pub speed_pct: Option<f64>,
    /// Energy for the same work, in per cent more (-18: 18% less).
    #[serde(default)]
    pub energy_pct: Option<f64>,
}

// Rows only hold claims whose figures are finite (check_row refuses the
// others), so equality is an equivalence and the rows can stay `Eq`.
impl Eq for Claim {}

/// Where a row came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "path")]
pub enum RowOrigin {
    /// Shipped with Gearshift.
    Builtin,
    /// An override file.
    Override(PathBuf),
}

/// One CPU model's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelRow {
    /// Intel or AMD.
    pub vendor: Vendor,
    /// Display family.
    pub family: u32,
    /// Display model.
    pub model: u32,
    /// Marketing codename, such as "Meteor Lake".
    pub codename: String,
    /// Which variant of the codename ("L (mobile)"), if any.
    pub variant: Option<String>,
    /// Model-specific values; `None` means the vendor's generic values.
    pub epp: Option<EppValues>,
    /// The first kernel that uses `epp` for the preference names.
    pub kernel: Option<KernelVersion>,
    /// Earlier kernels' values for this model, oldest first.
    pub history: Vec<(KernelVersion, EppValues)>,
    /// The kernel source the values come from.
    pub source: String,
    /// Built in or from an override file.
    pub origin: RowOrigin,
    /// What the maker measured for its values.
    #[serde(skip)]
    pub claims: Vec<Claim>,
}

/// The whole table: generic values per vendor plus per-model rows.
#[derive(Debug, Clone)]
pub struct ModelTable {
    /// Generic Intel values and their source.
    pub intel: (EppValues, String),
    /// Generic AMD values and their source.
    pub amd: (EppValues, String),
    /// Every model row.
    pub rows: Vec<ModelRow>,
}

/// What the table says about one CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelMatch {
    /// The codename, when the model is in the table.
    pub codename: Option<String>,
    /// The variant, when known.
    pub variant: Option<String>,
    /// The values Gearshift writes for each name.
    pub epp: EppValues,
    /// True when these differ from the vendor's generic row.
    pub model_specific: bool,
    /// The first kernel that knows `epp`, for model-specific rows.
    pub since_kernel: Option<KernelVersion>,
    /// Where the values come from.
    pub source: String,
    /// Built in or override.
    pub origin: RowOrigin,
    /// The vendor's generic values.
    pub generic: EppValues,
    #[serde(skip)]
    history: Vec<(KernelVersion, EppValues)>,
    /// What the maker measured for these values.
    #[serde(skip)]
    pub claims: Vec<Claim>,
}

impl ModelMatch {
    /// The values a given kernel uses for the preference names on this model
    /// (what writing a name, or `default`, gives there). `None` when the
    /// kernel version is unknown and matters: the vendor's generic values
    /// are the same on every kernel, so a snapshot without the kernel's
    /// release still knows them.
    pub fn kernel_values(&self, kernel: Option<KernelVersion>) -> Option<EppValues> {
        if !self.model_specific {
            return Some(self.generic);
        }
        let kernel = kernel?;
        match self.since_kernel {
            Some(since) if kernel >= since => return Some(self.epp),
            None => return Some(self.generic),
            Some(_) => {}
        }
        Some(self.history.iter().rev().find(|(since, _)| kernel >= *since).map_or(self.generic, |(_, values)| *values))
    }

    /// True when `kernel` already uses this model's own values.
    pub fn kernel_knows_model(&self, kernel: Option<KernelVersion>) -> Option<bool> {
        self.kernel_values(kernel).map(|values| values == self.epp)
    }
}

impl ModelTable {
    /// The built-in table.
    ///
    /// # Panics
    /// Never in a released build: the embedded table is checked by a unit test.
    pub fn builtin() -> Self {
        match parse_table(BUILTIN_TABLE, &RowOrigin::Builtin, None) {
            Ok(table) => table,
            Err(err) => panic!("the built-in model table is broken: {err}"),
        }
    }

    /// The built-in table with the override files under `root` applied.
    /// Bad override files are skipped and returned as problems.
    pub fn load(root: &SysRoot) -> (Self, Vec<Problem>) {
        let mut table = Self::builtin();
        let mut problems = Vec::new();
        let names = match root.list_dir(OVERRIDE_DIR) {
            Ok(names) => names,
            Err(problem) => return (table, vec![problem]),
        };
        for name in names.iter().filter(|n| n.ends_with(".toml")) {
            let rel = format!("{OVERRIDE_DIR}/{name}");
            let path = root.path(&rel);
            let text = match root.read_trusted_text(&rel, MAX_ATTRIBUTE_BYTES * 16) {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(problem) => {
                    problems.push(problem);
                    continue;
                }
            };
            match parse_table(&text, &RowOrigin::Override(path.clone()), Some(&table)) {
                Ok(extra) => table.apply(extra.rows),
                Err(err) => problems.push(Problem::new(&path, format!("is skipped: {}", err.what))),
            }
        }
        (table, problems)
    }

    fn apply(&mut self, rows: Vec<ModelRow>) {
        for row in rows {
            self.rows.retain(|r| !(r.vendor == row.vendor && r.family == row.family && r.model == row.model));
            self.rows.push(row);
        }
    }

    /// The row for a CPU, or the vendor's generic values. `None` for CPUs
    /// that are neither Intel nor AMD.
    pub fn lookup(&self, cpu: &CpuIdentity) -> Option<ModelMatch> {
        let (generic, generic_source) = match cpu.vendor {
            Vendor::Intel => &self.intel,
            Vendor::Amd => &self.amd,
            Vendor::Other => return None,
        };
        let row = self
            .rows
            .iter()
            .find(|r| r.vendor == cpu.vendor && Some(r.family) == cpu.family && Some(r.model) == cpu.model);
        let Some(row) = row else {
            return Some(ModelMatch {
                codename: None,
                variant: None,
                epp: *generic,
                model_specific: false,
                since_kernel: None,
                source: generic_source.clone(),
                origin: RowOrigin::Builtin,
                generic: *generic,
                history: Vec::new(),
                claims: Vec::new(),
            });
        };
        let epp = row.epp.unwrap_or(*generic);
        Some(ModelMatch {
            codename: Some(row.codename.clone()),
            variant: row.variant.clone(),
            epp,
            model_specific: epp != *generic,
            since_kernel: row.kernel,
            source: if row.epp.is_some() { row.source.clone() } else { generic_source.clone() },
            origin: row.origin.clone(),
            generic: *generic,
            history: row.history.clone(),
            claims: row.claims.clone(),
        })
    }
}

#[cfg(test)]
mod tests;
