//! What the idle helper keeps resident (docs/performance.md, "The helper's
//! memory").
//!
//! A root daemon idles for days between a few changes, so what it costs the
//! machine is what it holds while idle. Two things outlive a change:
//! - the heap's free pages (a switch on 256 CPUs allocates and frees a few
//!   hundred kilobytes): handed back with `malloc_trim`;
//! - the program's own file pages: the kernel maps a file's pages in windows
//!   of 64 KiB around each page touched (fault-around), so after a few
//!   changes nearly all of the binary's machine code, constants and
//!   unwinding tables are resident, and counted as the helper's alone (no
//!   other process maps them). Once changes have settled, those pages are
//!   unmapped from the helper (`MADV_DONTNEED`); they stay in the page cache
//!   like any file's, and the next change maps back, from there, the pages
//!   it uses.
//!
//! Only read-only mappings of the program's own file whose pages all still
//! hold the file's bytes are unmapped: `smaps` shows them with no
//! `Anonymous` pages and nothing in swap when the helper starts (the
//! dynamic loader has applied every relocation by then, and a read-only
//! mapping cannot be written later), so what comes back is what was there.
//! The relocated read-only data (RELRO, written by the loader before it was
//! made read-only) and the writable data are never touched: dropping a
//! written private page would bring back the file's bytes in its place.
//! RELRO is known two ways, either of which sets it aside: its pages are
//! anonymous (or, swapped out, counted under `Swap:` instead), and the
//! program's own `PT_GNU_RELRO` header names its range.
//!
//! The work happens once changes pause for [`SETTLE`], not at each one: a
//! burst of changes (a desktop's profile slider, a hotplug of 128 CPUs)
//! costs one pass, and an idle helper has no timer at all.

use std::time::Duration;

use tokio::sync::Notify;

/// How long the helper waits after the last change before it gives memory
/// back: long enough for a burst of changes and their replies, short enough
/// that an idle helper is small again within a second.
pub const SETTLE: Duration = Duration::from_millis(200);

static CHANGED: Notify = Notify::const_new();

/// Called after every change: the memory goes back once changes pause.
pub(crate) fn changed() {
    CHANGED.notify_one();
}

/// Keeps glibc's allocator to one arena: the helper's threads (the state
/// saver, the runtime's short-lived blocking thread) would otherwise each get
/// an arena of their own that stays resident for the life of the daemon.
/// Call before any thread starts.
pub fn tune_allocator() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Gives memory back each time changes settle, for the life of the helper.
pub(crate) async fn give_back_when_settled() {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let pages = outside(own_file_pages(&smaps, &own_path()), relro_range());
    log::debug!(
        "the program's read-only pages: {} mapping(s), {} KiB",
        pages.len(),
        pages.iter().map(|r| r.len).sum::<usize>() / 1024
    );
    loop {
        CHANGED.notified().await;
        // Wait until SETTLE passes without a change.
        while tokio::time::timeout(SETTLE, CHANGED.notified()).await.is_ok() {}
        give_back(&pages);
    }
}

/// One mapping of the program's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Region {
    start: usize,
    len: usize,
}

/// The path the kernel shows for the program in /proc/self/smaps (with
/// " (deleted)" once a package upgrade replaced the file, as there).
fn own_path() -> String {
    std::fs::read_link("/proc/self/exe").map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The program's read-only private mappings whose pages all hold the
/// file's bytes (no `Anonymous` pages, none swapped out), from the text of
/// /proc/self/smaps: a header per mapping ("start-end perms offset dev
/// inode path") followed by its "Key: value kB" lines. A mapping missing
/// either line does not qualify.
fn own_file_pages(smaps: &str, program: &str) -> Vec<Region> {
    if program.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    // The mapping being read, while it qualifies so far, with how many of
    // its two lines said 0.
    let mut current: Option<(Region, u8)> = None;
    let mut close = |current: &mut Option<(Region, u8)>| {
        if let Some((region, 2)) = current.take() {
            found.push(region);
        }
    };
    for line in smaps.lines() {
        if let Some(region) = mapping_header(line, program) {
            close(&mut current);
            current = region.map(|r| (r, 0));
            continue;
        }
        let Some((_, zeros)) = current.as_mut() else { continue };
        let Some(value) = line.strip_prefix("Anonymous:").or_else(|| line.strip_prefix("Swap:")) else { continue };
        if value.split_whitespace().next() == Some("0") {
            *zeros += 1;
        } else {
            current = None;
        }
    }
    close(&mut current);
    found
}

/// `regions` without any that overlaps `relro` (start, end).
fn outside(regions: Vec<Region>, relro: Option<(usize, usize)>) -> Vec<Region> {
    let Some((start, end)) = relro else { return regions };
    regions.into_iter().filter(|r| r.start + r.len <= start || r.start >= end).collect()
}

/// The program's own relocated read-only range (`PT_GNU_RELRO`), as
/// loaded: from the first object `dl_iterate_phdr` reports, the program.
fn relro_range() -> Option<(usize, usize)> {
    unsafe extern "C" fn first(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut libc::c_void) -> i32 {
        // SAFETY: the loader hands a valid info for the call's duration;
        // `data` is the Option we passed.
        let (info, found) = unsafe { (&*info, &mut *data.cast::<Option<(usize, usize)>>()) };
        let headers = if info.dlpi_phdr.is_null() {
            &[][..]
        } else {
            // SAFETY: dlpi_phdr points at dlpi_phnum program headers.
            unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) }
        };
        *found = headers.iter().find(|h| h.p_type == libc::PT_GNU_RELRO).map(|h| {
            let start = info.dlpi_addr as usize + h.p_vaddr as usize;
            (start, start + h.p_memsz as usize)
        });
        // The first object is the program: stop there.
        1
    }
    let mut found: Option<(usize, usize)> = None;
    // SAFETY: the callback only reads what the loader hands it and writes
    // the Option whose pointer it is given, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(first), std::ptr::from_mut(&mut found).cast()) };
    // Whole pages: the loader protects them so.
    let page = 4096;
    found.map(|(start, end)| (start & !(page - 1), (end + page - 1) & !(page - 1)))
}

/// For a mapping's header line: `Some(Some(region))` when it is a read-only
/// private mapping of `program`, `Some(None)` for any other mapping, `None`
/// for a line that is no header.
fn mapping_header(line: &str, program: &str) -> Option<Option<Region>> {
    let mut fields = line.splitn(6, ' ');
    let (start, end) = fields.next()?.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    let perms = fields.next()?;
    let path = fields.nth(3).unwrap_or("").trim_start();
    let read_only = perms == "r-xp" || perms == "r--p";
    Some((read_only && path == program && end > start).then(|| Region { start, len: end - start }))
}

fn give_back(pages: &[Region]) {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim walks the allocator's own free lists under its lock.
    unsafe {
        libc::malloc_trim(0);
    }
    for region in pages {
        // SAFETY: the region is a whole read-only private mapping of the
        // program's own file none of whose pages was ever written (see the
        // module's comment): MADV_DONTNEED only unmaps its pages, and the
        // next access maps the same bytes back from the file.
        let done = unsafe { libc::madvise(region.start as *mut libc::c_void, region.len, libc::MADV_DONTNEED) };
        if done != 0 {
            log::debug!("madvise(MADV_DONTNEED) on the program's pages: {}", std::io::Error::last_os_error());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mapping's header and the lines that matter here.
    fn mapping(header: &str, anonymous_kib: u32) -> String {
        swapped(header, anonymous_kib, 0)
    }

    fn swapped(header: &str, anonymous_kib: u32, swap_kib: u32) -> String {
        format!(
            "{header}\nSize:                100 kB\nAnonymous:      {anonymous_kib:>6} kB\nSwap:      {swap_kib:>6} kB\nVmFlags: rd mr mw me\n"
        )
    }

    const HELPER: &str = "/usr/libexec/gearshift-helper";

    fn smaps() -> String {
        [
            // Constants, unwinding tables: never written.
            mapping("55d0c0a00000-55d0c0a6b000 r--p 00000000 fe:01 1311 /usr/libexec/gearshift-helper", 0),
            // Machine code.
            mapping("55d0c0a6b000-55d0c0c8a000 r-xp 0006b000 fe:01 1311 /usr/libexec/gearshift-helper", 0),
            // RELRO: written by the loader, then made read-only.
            mapping("55d0c0c8a000-55d0c0cc0000 r--p 0028a000 fe:01 1311 /usr/libexec/gearshift-helper", 212),
            mapping("55d0c0cc0000-55d0c0cc1000 rw-p 002c0000 fe:01 1311 /usr/libexec/gearshift-helper", 0),
            mapping("55d0c1d4e000-55d0c1d6f000 rw-p 00000000 00:00 0                          [heap]", 132),
            mapping("7f5e2c028000-7f5e2c17d000 r-xp 00028000 fe:01 2048 /usr/lib/x86_64-linux-gnu/libc.so.6", 0),
            mapping("7f5e2c200000-7f5e2c210000 r-xp 00000000 fe:01 1312 /usr/libexec/gearshift-helper-old", 0),
            mapping("7ffd1b5f0000-7ffd1b5f2000 r-xp 00000000 00:00 0                          [vdso]", 0),
        ]
        .concat()
    }

    #[test]
    fn only_the_programs_own_never_written_read_only_mappings_are_given_back() {
        assert_eq!(
            own_file_pages(&smaps(), HELPER),
            [Region { start: 0x55d0_c0a0_0000, len: 0x6_b000 }, Region { start: 0x55d0_c0a6_b000, len: 0x21_f000 }]
        );
    }

    #[test]
    fn a_mapping_without_its_anonymous_line_is_not_given_back() {
        let header = "55d0c0a00000-55d0c0a6b000 r--p 00000000 fe:01 1311 /usr/libexec/gearshift-helper";
        let cut =
            format!("{header}\nSize:                100 kB\n{}", mapping(&header.replace("55d0c0a", "55d0c1a"), 4));
        assert!(own_file_pages(&cut, HELPER).is_empty());
    }

    #[test]
    fn a_mapping_with_pages_in_swap_or_without_its_swap_line_is_not_given_back() {
        // RELRO swapped out at start: its written pages are in swap, not
        // counted as Anonymous any more. Dropping them would bring back
        // the file's unrelocated bytes.
        let relro = swapped("55d0c0c8a000-55d0c0cc0000 r--p 0028a000 fe:01 1311 /usr/libexec/gearshift-helper", 0, 212);
        assert!(own_file_pages(&relro, HELPER).is_empty());
        let no_swap_line = "55d0c0a00000-55d0c0a6b000 r--p 00000000 fe:01 1311 /usr/libexec/gearshift-helper\nAnonymous: 0 kB\nVmFlags: rd\n";
        assert!(own_file_pages(no_swap_line, HELPER).is_empty());
        let clean = swapped("55d0c0a00000-55d0c0a6b000 r--p 00000000 fe:01 1311 /usr/libexec/gearshift-helper", 0, 0);
        assert_eq!(own_file_pages(&clean, HELPER), [Region { start: 0x55d0_c0a0_0000, len: 0x6_b000 }]);
    }

    #[test]
    fn the_relro_range_is_never_chosen() {
        let regions = vec![Region { start: 0x1000, len: 0x2000 }, Region { start: 0x5000, len: 0x1000 }];
        assert_eq!(outside(regions.clone(), Some((0x2000, 0x4000))), [Region { start: 0x5000, len: 0x1000 }]);
        assert_eq!(outside(regions.clone(), Some((0x3000, 0x5000))), regions);
        assert_eq!(outside(regions.clone(), None), regions);
        // The test program has one, and it is among its own mappings.
        let (start, end) = relro_range().expect("the test program's PT_GNU_RELRO");
        assert!(start < end);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let pages = outside(own_file_pages(&smaps, &own_path()), Some((start, end)));
        assert!(pages.iter().all(|r| r.start + r.len <= start || r.start >= end));
    }

    #[test]
    fn a_replaced_program_is_found_under_its_deleted_name() {
        let smaps = mapping("7f00-8f00 r-xp 00000000 fe:01 9 /usr/libexec/gearshift-helper (deleted)", 0);
        let deleted = format!("{HELPER} (deleted)");
        assert_eq!(own_file_pages(&smaps, &deleted), [Region { start: 0x7f00, len: 0x1000 }]);
        assert!(own_file_pages(&smaps, HELPER).is_empty());
        assert!(own_file_pages(&smaps, "").is_empty());
    }

    /// KiB of the mapping starting at `start` resident now (its Rss in
    /// /proc/self/smaps).
    fn resident_kib(start: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let head = format!("{start:x}-");
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&head));
        lines.find_map(|l| l.strip_prefix("Rss:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap()
    }

    #[test]
    fn the_running_test_gives_its_own_pages_back_and_runs_on() {
        let live = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let pages = outside(own_file_pages(&live, &own_path()), relro_range());
        assert!(pages.len() >= 2, "the test program's code and constants were not found: {pages:?}");
        let largest = pages.iter().max_by_key(|r| r.len).unwrap().start;
        let before = resident_kib(largest);
        give_back(&pages);
        // The code runs on, mapped back from the file page by page: what
        // this test touches since is a small part of what was resident.
        let after = resident_kib(largest);
        assert!(after < before, "the pages stayed resident: {before} KiB before, {after} KiB after");
        assert_eq!(own_file_pages(&smaps(), HELPER).len(), 2);
    }
}
