//! How long a measurement the page asks for takes on this computer: its
//! plan (the work, the dev scale, the CPUs) and the estimate from the kept
//! measurements (`client::lab::Estimate`).

use gearshift::client::lab::{self, Estimate, Kept, Plan, Span};

use super::LabRequest;

/// What the estimate goes by here.
#[derive(Debug, Clone, Default)]
pub struct Timing {
    /// The CPU as kept measurements name it ([`lab::Origin`]).
    pub cpu: String,
    /// The online CPUs the work runs on.
    pub cpus: usize,
    /// The development variable that scales the work (1 otherwise).
    pub scale: f64,
    /// The kept measurements, newest first.
    pub kept: Vec<Kept>,
}

impl Timing {
    /// What `request` will do on this computer.
    pub fn plan(&self, request: &LabRequest) -> Plan {
        Plan {
            workload: request.workload,
            scale: request.scale * self.scale,
            cpus: self.cpus,
            profiles: request.profiles.clone(),
            rounds: request.rounds,
        }
    }

    /// How long `request` takes, from this computer's kept measurements.
    pub fn estimate(&self, request: &LabRequest) -> Estimate {
        Estimate::new(&self.plan(request), &self.kept, &self.cpu)
    }

    /// "About 3 to 7 minutes for 15 to 40 runs.", before `request` starts.
    pub fn how_long(&self, request: &LabRequest) -> String {
        let (soonest, latest) = self.estimate(request).before(request.rounds);
        let (fewest, most) = request.rounds.range();
        let n = request.profiles.len();
        lab::estimate_words(Span::of(soonest, latest), n * fewest, n * most)
    }
}
