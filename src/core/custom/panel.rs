//! How the desktop panel shows a custom profile (`core::panel`'s rule).

use super::{CustomProfile, EppSetting};
use crate::core::models::EppValues;
use crate::core::panel::{PanelProfile, KERNEL_GENERIC};
use crate::core::parse::EppName;

impl CustomProfile {
    /// How the desktop panel shows this profile (`core::panel`'s rule), on
    /// a model whose named values are `values` (`None`: a CPU the model
    /// table does not know, which gets the kernel's generic ones).
    pub fn panel_profile(&self, values: Option<&EppValues>) -> PanelProfile {
        let values = values.unwrap_or(&KERNEL_GENERIC);
        // The P-cores' preference speaks for the CPU; a profile that sets
        // only the E-cores' is judged by those.
        let epp = [&self.epp_performance_cores, &self.epp, &self.epp_efficiency_cores].into_iter().flatten().find_map(
            |setting| match setting {
                EppSetting::Value(value) => Some(*value),
                EppSetting::Name(name) => EppName::from_kernel(name).and_then(|name| values.get(name)),
            },
        );
        match epp {
            Some(epp) => PanelProfile::of_epp(epp, values),
            None => PanelProfile::of_platform(self.platform_profile.as_deref()),
        }
    }
}
