//! Reading a model table file (`data/cpu-models.toml`, an override in
//! `cpu-models.d`): its raw form, and the checks that turn a raw row into
//! a [`ModelRow`] or say what is wrong with it.

use serde::Deserialize;

use super::*;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    generic: Option<RawGenerics>,
    #[serde(default)]
    model: Vec<RawRow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGenerics {
    intel: RawGeneric,
    amd: RawGeneric,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGeneric {
    source: String,
    epp: EppValues,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    vendor: String,
    family: u32,
    model: u32,
    codename: String,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    epp: Option<EppValues>,
    #[serde(default)]
    kernel: Option<String>,
    source: String,
    #[serde(default)]
    history: Vec<RawHistory>,
    #[serde(default)]
    claims: Vec<Claim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHistory {
    kernel: String,
    epp: EppValues,
}

pub(super) fn parse_table(text: &str, origin: &RowOrigin, base: Option<&ModelTable>) -> Result<ModelTable, TableError> {
    let file = match origin {
        RowOrigin::Builtin => "data/cpu-models.toml".to_owned(),
        RowOrigin::Override(path) => path.display().to_string(),
    };
    let err = |what: String| TableError { file: file.clone(), what };
    let raw: RawTable = toml::from_str(text).map_err(|e| err(e.message().to_owned()))?;
    let (intel, amd) = match (raw.generic, base) {
        (Some(g), None) => ((g.intel.epp, g.intel.source), (g.amd.epp, g.amd.source)),
        (None, Some(base)) => (base.intel.clone(), base.amd.clone()),
        (Some(_), Some(_)) => return Err(err("override files may not change the generic rows".into())),
        (None, None) => return Err(err("the table has no generic rows".into())),
    };
    let mut rows: Vec<ModelRow> = Vec::with_capacity(raw.model.len());
    for (index, raw_row) in raw.model.into_iter().enumerate() {
        let row = check_row(raw_row, origin).map_err(|what| err(format!("model row {}: {what}", index + 1)))?;
        if rows.iter().any(|r| r.vendor == row.vendor && r.family == row.family && r.model == row.model) {
            return Err(err(format!(
                "model row {}: family {} model {} appears twice",
                index + 1,
                row.family,
                row.model
            )));
        }
        rows.push(row);
    }
    Ok(ModelTable { intel, amd, rows })
}

fn check_row(raw: RawRow, origin: &RowOrigin) -> Result<ModelRow, String> {
    let vendor = match raw.vendor.as_str() {
        "intel" => Vendor::Intel,
        "amd" => Vendor::Amd,
        other => return Err(format!("vendor {other:?} is not \"intel\" or \"amd\"")),
    };
    if raw.family > 0x10E {
        return Err(format!("family {} is out of range", raw.family));
    }
    if raw.model > 0xFF {
        return Err(format!("model {} is out of range (0 to 255)", raw.model));
    }
    let codename = raw.codename.trim().to_owned();
    if codename.is_empty() || codename.len() > 64 {
        return Err("codename must have 1 to 64 characters".into());
    }
    let kernel = raw.kernel.as_deref().map(parse_kernel_version).transpose().map_err(|e| format!("kernel: {e}"))?;
    if raw.epp.is_none() && (kernel.is_some() || !raw.history.is_empty()) {
        return Err("kernel and history need an epp table".into());
    }
    let mut history = Vec::new();
    for h in raw.history {
        let since = parse_kernel_version(&h.kernel).map_err(|e| format!("history kernel: {e}"))?;
        if kernel.is_some_and(|k| since >= k) {
            return Err(format!("history kernel {since} is not older than kernel {}", kernel.unwrap_or(since)));
        }
        history.push((since, h.epp));
    }
    history.sort_by_key(|(since, _)| *since);
    let finite =
        |c: &Claim| [Some(c.work_per_joule_pct), c.speed_pct, c.energy_pct].into_iter().flatten().all(f64::is_finite);
    if let Some(bad) = raw.claims.iter().find(|c| !finite(c) || c.benchmark.trim().is_empty()) {
        return Err(format!("claim {:?} needs a benchmark and finite figures", bad.benchmark));
    }
    Ok(ModelRow {
        vendor,
        family: raw.family,
        model: raw.model,
        codename,
        variant: raw.variant,
        epp: raw.epp,
        kernel,
        history,
        source: raw.source,
        origin: origin.clone(),
        claims: raw.claims,
    })
}
