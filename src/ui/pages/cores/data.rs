//! The figures the Cores page and the overview show: every CPU's latest
//! sample and a minute of history, pushed by the sampler's ticks.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use gearshift::core::identity::CoreType;
use gearshift::core::monitor::CpuSample;
use gearshift::core::status::Status;

use crate::ui::model::CoreCard;

/// The Cores page's latest frame, read by the tooltips of its cards and
/// heat maps when asked (the page replaces it each tick; no other page
/// sees it).
pub type Frame = Rc<RefCell<Arc<CoreData>>>;

/// One CPU's data, kept across ticks.
#[derive(Debug, Clone)]
pub struct CoreEntry {
    /// CPU number.
    pub id: u32,
    /// P- or E-core.
    pub core_type: Option<CoreType>,
    /// Online.
    pub online: bool,
    /// Latest sample.
    pub sample: Option<CpuSample>,
    /// The EPP number behind the sample's reading.
    pub epp_value: Option<u8>,
    /// scaling_min/max_freq.
    pub range: (Option<u64>, Option<u64>),
    /// The hardware maximum, for the sparkline's scale.
    pub hw_max_khz: u64,
    /// The hardware minimum (the heat map's coolest colour).
    pub hw_min_khz: u64,
    /// The socket (physical package), where the topology says.
    pub package: Option<u32>,
    /// Recent frequencies in kHz, oldest first.
    pub history: VecDeque<u64>,
}

/// Every CPU's data: a frame. The window keeps the newest and sends it to
/// the pages behind an `Arc`; the next tick changes a copy where a page
/// still holds the last one (`Arc::make_mut`).
#[derive(Debug, Default, Clone)]
pub struct CoreData {
    /// In display order: P-cores, E-cores, then the rest.
    pub entries: Vec<CoreEntry>,
    index: HashMap<u32, usize>,
    /// How many samples make 60 seconds.
    pub history_len: usize,
    /// Each built-in profile's EPP here, with its display name.
    profile_names: Vec<(u8, String)>,
}

impl CoreData {
    /// The data for the CPUs of a status report.
    pub fn from_status(status: &Status, history_len: usize) -> CoreData {
        let mut entries: Vec<CoreEntry> = status
            .cpus
            .iter()
            .map(|c| CoreEntry {
                id: c.id,
                core_type: c.core_type,
                online: c.online,
                sample: None,
                epp_value: c.epp_value,
                range: (c.min_khz, c.max_khz),
                hw_max_khz: c.hw_max_khz.unwrap_or(0),
                hw_min_khz: c.hw_min_khz.unwrap_or(0),
                package: c.package,
                history: VecDeque::with_capacity(history_len),
            })
            .collect();
        let rank = |t: Option<CoreType>| match t {
            Some(CoreType::Performance) => 0,
            Some(CoreType::Efficiency) => 1,
            None => 2,
        };
        entries.sort_by_key(|e| (rank(e.core_type), e.id));
        let index = entries.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        let profile_names = status
            .profiles
            .iter()
            .filter(|p| p.builtin)
            .filter_map(|p| Some((p.epp?, p.title().localized())))
            .collect();
        CoreData { entries, index, history_len: history_len.max(2), profile_names }
    }

    /// Takes a tick's samples; `epp_value` maps a reading to its number.
    pub fn push(&mut self, samples: &[CpuSample], epp_value: &dyn Fn(&CpuSample) -> Option<u8>) {
        for sample in samples {
            let Some(&i) = self.index.get(&sample.id) else { continue };
            let entry = &mut self.entries[i];
            if entry.history.len() == self.history_len {
                entry.history.pop_front();
            }
            entry.history.push_back(sample.cur_khz.unwrap_or(0));
            entry.epp_value = epp_value(sample);
            entry.sample = Some(sample.clone());
        }
    }

    /// The entry for a CPU.
    pub fn get(&self, id: u32) -> Option<&CoreEntry> {
        self.index.get(&id).map(|&i| &self.entries[i])
    }

    /// The card text for a CPU.
    pub fn card(&self, id: u32) -> Option<CoreCard> {
        let e = self.get(id)?;
        Some(CoreCard::new(
            e.id,
            e.core_type,
            e.online,
            e.sample.as_ref(),
            e.epp_value,
            e.range,
            self.profile_name(e.epp_value),
        ))
    }

    /// The built-in profile whose EPP is `value` on this machine.
    pub fn profile_name(&self, value: Option<u8>) -> Option<&str> {
        let value = value?;
        self.profile_names.iter().find(|(v, _)| *v == value).map(|(_, name)| name.as_str())
    }
}
