#[test]
fn an_epp_shows_its_number_first_and_the_kernels_name_only_where_printed() {
    let name = EppReading::Name(EppName::BalancePerformance);
    assert_eq!(name.shown(Some(64)), "64 (balance_performance)");
    assert_eq!(name.shown(None), "balance_performance");
    assert_eq!(EppReading::Value(64).shown(Some(64)), "64");
}

use super::*;
use proptest::prelude::*;

#[test]
fn quotes_are_escaped_and_short_whatever_comes_in() {
    assert_eq!(quote("balanced"), "\"balanced\"");
    assert_eq!(quote("a\"b\u{1}"), r#""a\"b\u{1}""#);
    let long = quote(&"\u{1}".repeat(7_000_000));
    assert!(long.len() < 400, "{} bytes", long.len());
    assert!(long.ends_with('…'));
    let quotes = quote(&"\"".repeat(16_800_000));
    assert!(quotes.len() < 100, "{} bytes", quotes.len());
    assert_eq!(quote(&"é".repeat(40)), format!("\"{}\"", "é".repeat(40)));
    assert_eq!(quote(&"é".repeat(41)), format!("\"{}\"…", "é".repeat(40)));
}

#[test]
fn cpu_lists() {
    assert_eq!(parse_cpu_list("0-3,8,10-11\n").unwrap(), vec![0, 1, 2, 3, 8, 10, 11]);
    assert_eq!(parse_cpu_list("0").unwrap(), vec![0]);
    assert_eq!(parse_cpu_list("\n").unwrap(), Vec::<u32>::new());
    assert_eq!(parse_cpu_list("3,1,1").unwrap(), vec![1, 3]);
    assert!(parse_cpu_list("3-1").is_err());
    assert!(parse_cpu_list("a").is_err());
    assert!(parse_cpu_list("1,,2").is_err());
    assert!(parse_cpu_list("-1").is_err());
    assert!(parse_cpu_list("0-99999").is_err());
    assert!(parse_cpu_list("0-15:2/4").is_err());
    assert!(parse_cpu_list("+1").is_err());
}

#[test]
fn cpu_list_round_trip() {
    for text in ["0-3,8,10-11", "0", "0-255", "1,3,5", "0-1,4-5"] {
        assert_eq!(format_cpu_list(&parse_cpu_list(text).unwrap()), text);
    }
    assert_eq!(format_cpu_list(&[]), "");
}

#[test]
fn epp_in_both_forms() {
    assert_eq!(parse_epp("balance_performance\n").unwrap(), EppReading::Name(EppName::BalancePerformance));
    assert_eq!(parse_epp("64\n").unwrap(), EppReading::Value(64));
    assert_eq!(parse_epp("0").unwrap(), EppReading::Value(0));
    assert_eq!(parse_epp("255").unwrap(), EppReading::Value(255));
    assert_eq!(parse_epp("default").unwrap(), EppReading::Name(EppName::Default));
    assert!(parse_epp("256").is_err());
    assert!(parse_epp("-1").is_err());
    assert!(parse_epp("Balance_Power").is_err());
    assert!(parse_epp("").is_err());
    assert!(parse_epp("0x40").is_err());
}

#[test]
fn words_and_numbers() {
    assert_eq!(parse_words("performance powersave\n").unwrap(), vec!["performance", "powersave"]);
    assert!(parse_words("ok bad/word").is_err());
    assert_eq!(parse_word("intel_pstate\n").unwrap(), "intel_pstate");
    assert!(parse_word("two words").is_err());
    assert_eq!(parse_u64("2400000\n").unwrap(), 2_400_000);
    assert!(parse_u64("<unknown>").is_err());
    assert!(parse_u64("99999999999999999999999").is_err());
    assert!(parse_flag("1\n").unwrap());
    assert!(parse_flag("2").is_err());
    assert_eq!(parse_epb("6\n").unwrap(), 6);
    assert!(parse_epb("16").is_err());
}

#[test]
fn impossible_numbers_are_not_plausible() {
    assert!(plausible_khz(400_000) && plausible_khz(5_276_318) && plausible_khz(MAX_PLAUSIBLE_KHZ));
    assert!(!plausible_khz(0));
    assert!(!plausible_khz(MAX_PLAUSIBLE_KHZ + 1));
    assert!(!plausible_khz(4_294_967_285));
    assert!(plausible_percent(100) && !plausible_percent(101));
    assert!(plausible_perf_level(32) && plausible_perf_level(255));
    // num_pstates as a Haswell-EP on 6.10-rc1 showed it: -EAGAIN as unsigned.
    assert!(!plausible_perf_level(4_294_967_285));
}

#[test]
fn kernel_versions() {
    assert_eq!(parse_kernel_version("6.8.0-45-generic").unwrap(), KernelVersion::new(6, 8, 0));
    assert_eq!(parse_kernel_version("6.11").unwrap(), KernelVersion::new(6, 11, 0));
    assert_eq!(parse_kernel_version("6.12.9+bpo-amd64").unwrap(), KernelVersion::new(6, 12, 9));
    assert_eq!(parse_kernel_version("5.17.0-rc3").unwrap(), KernelVersion::new(5, 17, 0));
    assert!(parse_kernel_version("linux").is_err());
    assert!(parse_kernel_version("6").is_err());
    assert!(KernelVersion::new(6, 11, 0) > KernelVersion::new(6, 9, 12));
    assert_eq!(KernelVersion::new(6, 11, 0).to_string(), "6.11");
}

proptest! {
    #[test]
    fn parsers_never_panic_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_cpu_list(&text);
        let _ = parse_u64(&text);
        let _ = parse_flag(&text);
        let _ = parse_words(&text);
        let _ = parse_word(&text);
        let _ = parse_epp(&text);
        let _ = parse_epb(&text);
        let _ = parse_kernel_version(&text);
    }

    #[test]
    fn cpu_lists_survive_list_like_text(text in "[0-9,\\- ]{0,64}") {
        if let Ok(ids) = parse_cpu_list(&text) {
            prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
            prop_assert_eq!(parse_cpu_list(&format_cpu_list(&ids)).unwrap(), ids);
        }
    }

    #[test]
    fn epp_numbers_round_trip(value in 0u8..=255) {
        prop_assert_eq!(parse_epp(&format!("{value}\n")).unwrap(), EppReading::Value(value));
    }
}
