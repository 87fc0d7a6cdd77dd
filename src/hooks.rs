//! The development and test hooks: `GEARSHIFT_*` variables the window
//! reads once, in `main`, for screenshots, the bench and the tests.

/// The development and test hooks, read from `GEARSHIFT_*` variables once,
/// in `main`, and nowhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DevHooks {
    /// `GEARSHIFT_SIZE=WxH`: the window's size (screenshots).
    pub size: Option<(i32, i32)>,
    /// `GEARSHIFT_PAGE`: the page to open on (screenshots).
    pub page: Option<String>,
    /// `GEARSHIFT_REPORT_FIRST_FRAME`: print when the first frame was drawn
    /// (the bench).
    pub report_first_frame: bool,
    /// `GEARSHIFT_LAB_SCALE` (0.001 to 1): multiplies the Efficiency page's
    /// work, so that tests and screenshots measure in seconds. Kept in
    /// thousandths.
    pub lab_scale_milli: Option<u32>,
    /// `GEARSHIFT_TOAST_SECONDS` (0 to 60): how long toasts stay, 0 until
    /// dismissed, so that a test can read one with a screen reader's slow
    /// walk of the tree and press its buttons.
    pub toast_seconds: Option<u32>,
    /// `GEARSHIFT_STATE_FILE`: where the window keeps what it shows, as
    /// JSON, for tests to wait on (src/ui/state.rs).
    pub state_file: Option<std::path::PathBuf>,
    /// `GEARSHIFT_LAB_SHOW_KEPT`: the Efficiency page opens on the newest
    /// kept measurement (screenshots of a result).
    pub lab_show_kept: bool,
}

impl DevHooks {
    /// Reads the variables.
    #[cfg(feature = "gui")]
    pub fn from_env() -> DevHooks {
        let size = std::env::var("GEARSHIFT_SIZE").ok().and_then(|v| {
            let (w, h) = v.split_once('x')?;
            Some((w.parse::<i32>().ok()?, h.parse::<i32>().ok()?))
        });
        DevHooks {
            size,
            page: std::env::var("GEARSHIFT_PAGE").ok(),
            report_first_frame: std::env::var_os("GEARSHIFT_REPORT_FIRST_FRAME").is_some(),
            lab_scale_milli: std::env::var("GEARSHIFT_LAB_SCALE")
                .ok()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.001 && *v <= 1.0)
                .map(|v| (v * 1000.0).round() as u32),
            toast_seconds: std::env::var("GEARSHIFT_TOAST_SECONDS")
                .ok()
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|s| *s <= 60),
            state_file: std::env::var_os("GEARSHIFT_STATE_FILE")
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from),
            lab_show_kept: std::env::var_os("GEARSHIFT_LAB_SHOW_KEPT").is_some(),
        }
    }
}
