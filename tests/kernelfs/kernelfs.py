#!/usr/bin/python3
"""A sysfs that answers like the kernel, for Gearshift's tests.

Serves BACKING (a copy of a fixture snapshot, laid out like /) at MOUNTPOINT
with FUSE. BACKING may be MOUNTPOINT itself: the emulator changes into
BACKING before it mounts and from then on only uses paths relative to its
working directory, which keeps pointing at the directory underneath the
mount.

Most files pass through to BACKING. The attributes below answer as the
kernel's store and show functions do. Their state lives in memory, read from
BACKING once at the start, so the fixture's files are never rewritten by a
modelled write. docs/testing.md ("The kernel-faithful sysfs") lists every
rule, with what is not modelled:

- cpufreq policies: scaling_governor, scaling_available_governors,
  scaling_driver, scaling_min_freq, scaling_max_freq, cpuinfo_max_freq,
  energy_performance_preference and energy_performance_available_preferences
  (amd-pstate 7.1+: raw numbers and `custom`), and the per-policy `boost`
  where the tree has it (amd-pstate 6.11+); every file of a policy whose CPUs
  are all offline is EBUSY;
- intel_pstate/status, no_turbo, hwp_dynamic_boost, amd_pstate/status and
  amd_pstate/dynamic_epp (7.1, where the tree has it): driver modes, turbo,
  dynamic EPP, and the policy directories they recreate;
- cpuN/online, cpu/online and cpu/offline; cpuN/power/energy_perf_bias;
- the ACPI platform profile: firmware/acpi/platform_profile{,_choices} and
  class/platform-profile/*/{name,profile,choices}, with drivers that load
  and unload later, hidden choices (6.14; amd-pmf's), `max-power` (6.19),
  and amd-pstate's per-CPU handlers below cpuN (7.1, while dynamic EPP is
  on), which set their CPU's EPP; thinkpad_acpi's dytc_lapmode;
- power supplies' charge_type and charge_types, the charger's `online` (AC,
  or the supply of type Mains), the amdgpu panel's panel_power_savings and
  the GPU's power_dpm_force_performance_level (the actions
  power-profiles-daemon 0.30 has);
- RAPL energy counters (class/powercap/intel-rapl:N[:M]/energy_uj): they
  count up at the power of a model (POWER_MODEL below) of what the CPUs'
  hardware EPP asks for, and wrap at max_energy_range_uj, so that the
  efficiency lab can be tested on a machine whose energy follows its EPP;
- kernfs_notify(): where the kernel calls sysfs_notify() on these files the
  emulator writes one byte to each through the mount, from a thread of its
  own (NOTIFIER), so that an inotify watch set through the mount sees
  IN_MODIFY; those writes are recognised by their thread id and change
  nothing.

A virtual directory `kernelfs/` at the root (not in BACKING) holds `control`,
where a test plays the firmware, one command per write:

    resume                          non-boot policies' hardware EPP falls to 128
    firmware-epp VALUE [POLICY ...] firmware sets the EPP (all active policies)
    offline CPU | online CPU        CPU hotplug
    mode MODE                       as if someone wrote the driver's status file
    platform-profile NAME [HANDLER ...]   a hotkey changes the platform profile
    lap-mode 0|1                    the lap sensor (dytc_lapmode) changes
    ac 0|1                          the charger is unplugged or plugged in (its
                                    `online`); with dynamic EPP on, amd-pstate
                                    sets the balanced EPP again (0 on AC, 128
                                    on battery) where a CPU's handler is at
                                    `balanced`
    load-platform-profile legacy CHOICE[,CHOICE ...] CURRENT
    load-platform-profile class DRIVER CHOICE[,CHOICE ...] CURRENT
                                    a platform profile driver loads late
    unload-platform-profile HANDLER a driver goes (platform-profile-N, its
                                    driver's name, or legacy)
    fail-writes PATH ERRNO [AFTER]  fault injection, not the kernel: after
                                    AFTER more writes that work (0 if not
                                    given), every write to PATH (relative to
                                    the root) fails with ERRNO (EIO, EBUSY...)
    slow-writes PATH SECONDS        fault injection too: each write to PATH
                                    takes SECONDS (firmware that answers late)
    clear-faults                    writes work again, at once

and `hardware`, JSON of what the registers hold and the drivers keep:
{"policies": {"0": {"epp": 128, "governor": "powersave"}, ...}, "epb": {...},
 "dynamic_epp": false (AMD with the file only), "profiles": {"platform-profile-0":
 "balanced", ...} (each handler's profile; "legacy" before 6.14)}

The kernel's EPP name table comes from --config (what `kernelfs.json` in
BACKING may also hold): {"epp_names": {"performance": 0, ...}}; without
either, intel_pstate's generic one.

Usage: kernelfs.py [--config JSON] BACKING MOUNTPOINT  (stays in the
foreground; unmount with `umount MOUNTPOINT` or `fusermount -u MOUNTPOINT`)
"""

import argparse
import errno
import functools
import itertools
import json
import os
import queue
import re
import stat
import threading
import time

from fusepy import FUSE, FuseOSError, Operations, fuse_get_context

CPU = "sys/devices/system/cpu"
CPUFREQ = f"{CPU}/cpufreq"
INTEL = f"{CPU}/intel_pstate"
AMD = f"{CPU}/amd_pstate"
LEGACY_PROFILE = "sys/firmware/acpi/platform_profile"
LEGACY_CHOICES = "sys/firmware/acpi/platform_profile_choices"
LEGACY_DIR = "sys/firmware/acpi"
PROFILE_CLASS = "sys/class/platform-profile"
# The device a driver that loads late registers its class device with (here
# a platform device named after the driver): the class device goes below it,
# in the class's directory (`platform-profile/platform-profile-N`), as
# platform_profile_register() does.
PROFILE_PARENT = "sys/devices/platform/{driver}"
LAPMODE = "sys/devices/platform/thinkpad_acpi/dytc_lapmode"
DYNAMIC_EPP = f"{AMD}/dynamic_epp"
CLASS_KERNEL = (6, 14)  # the first kernel with platform-profile class devices (and hidden choices)
MAX_POWER_KERNEL = (6, 19)  # the first kernel that knows the `max-power` profile
AMD_RAW_EPP_KERNEL = (7, 1)  # amd-pstate: raw EPP numbers, `custom`, dynamic EPP, per-CPU profiles
CONTROL_DIR = "kernelfs"

# The kernel's energy_perf_strings: the names energy_performance_preference
# takes, in the order energy_performance_available_preferences prints them.
EPP_STRINGS = ("default", "performance", "balance_performance", "balance_power", "power")
# intel_pstate's generic values; a kernel that knows the model may have others.
GENERIC_EPP = {"performance": 0, "balance_performance": 128, "balance_power": 192, "power": 255}
# amd-pstate's values (AMD_CPPC_EPP_*), the same in every kernel.
AMD_EPP = {"performance": 0, "balance_performance": 128, "balance_power": 191, "power": 255}
# The governors a distribution kernel registers, in registration order.
ALL_GOVERNORS = ("conservative", "ondemand", "userspace", "powersave", "performance", "schedutil")
# The energy bias names (arch/x86/kernel/cpu/intel_epb.c) and their values.
EPB_STRINGS = {"performance": 0, "balance-performance": 4, "normal": 6, "balance-power": 8, "power": 15}
# The platform profile names, in the kernel's order (the order of choices);
# `max-power` only on kernels that know it (MAX_POWER_KERNEL).
PROFILE_NAMES = ("low-power", "cool", "quiet", "balanced", "balanced-performance", "performance", "max-power",
                 "custom")
# Hidden choices (6.14): what a driver takes through the legacy file without
# offering it in its class device's `choices`, by driver name.
HIDDEN_CHOICES = {"amd-pmf": ("quiet", "balanced-performance")}
# amd-pstate's per-CPU platform profiles (7.1, while dynamic EPP is on): the
# class device's name, its choices, and the EPP each choice sets (`balanced`:
# the balanced EPP of the power source, AMD_BALANCED_EPP).
CPU_PROFILE_NAME = "amd-pstate-epp-cpu{cpu}"
CPU_PROFILE_EPP = {"low-power": 255, "balanced": None, "performance": 0}
# amd-pstate's epp_default_ac and epp_default_dc of a non-server system: the
# balanced EPP on AC and on battery.
AMD_BALANCED_EPP = {True: 0, False: 128}
# POWER_SUPPLY_CHARGE_TYPE_*'s names (power_supply_sysfs.c), in their order.
CHARGE_TYPES = ("Unknown", "N/A", "Trickle", "Fast", "Standard", "Adaptive", "Custom", "Long Life", "Bypass")
# What a driver's set_property() takes where the tree does not say (no
# charge_types): apple-mfi-fastcharge only Trickle and Fast; others any real type.
DRIVER_CHARGE_TYPES = {"apple_mfi_fastcharge": ("Trickle", "Fast")}
# amdgpu_set_power_dpm_force_performance_level()'s words, matched as
# prefixes (strncmp with the word's length), in its order.
DPM_LEVELS = ("low", "high", "auto", "manual", "profile_exit", "profile_standard", "profile_min_sclk",
              "profile_min_mclk", "profile_peak", "perf_determinism")
PANEL_POWER_MAX = 4  # panel_power_savings_store(): 0..4
EPP_AFTER_RESUME = 0x80  # what firmware leaves in HWP_REQUEST of the non-boot CPUs
EPP_OFFLINE = 0xFF  # intel_pstate_hwp_offline(): an offline CPU asks for the least power
S32_MAX = 2**31 - 1  # frequency QoS requests are s32
U32_MAX = 2**32 - 1
VIRTUAL_FH = 1 << 30  # file handles of modelled files (no descriptor behind them)
SPACE = " \t\n\v\f\r"  # the kernel's isspace()
STAT_KEYS = ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")

# Modelled attributes: (path pattern, handler name, writable). The handler
# name selects exists_/show_/store_ methods of Kernel; the groups of the
# pattern are its arguments (a policy or CPU number).
POLICY_DIR = rf"{CPUFREQ}/policy(\d+)"
# A policy's modelled files: file name, handler name, writable. They are
# served whether or not the fixture has them (its inactive policies hold
# only placeholders).
POLICY_FILES = [
    ("scaling_governor", "governor", True),
    ("scaling_available_governors", "available_governors", False),
    ("scaling_driver", "driver", False),
    ("energy_performance_preference", "epp", True),
    ("energy_performance_available_preferences", "epp_choices", False),
    ("scaling_max_freq", "max_freq", True),
    ("scaling_min_freq", "min_freq", True),
    ("cpuinfo_max_freq", "cpuinfo_max_freq", False),
]
ATTRIBUTES = [(rf"{POLICY_DIR}/{file}", name, writable) for file, name, writable in POLICY_FILES] + [
    (rf"{INTEL}/status", "intel_status", True),
    (rf"{INTEL}/no_turbo", "no_turbo", True),
    (rf"{INTEL}/hwp_dynamic_boost", "hwp_boost", True),
    (rf"{AMD}/status", "amd_status", True),
    (DYNAMIC_EPP, "dynamic_epp", True),
    (rf"{POLICY_DIR}/boost", "policy_boost", True),
    (rf"{CPU}/cpu(\d+)/online", "online", True),
    (rf"{CPU}/cpu(\d+)/power/energy_perf_bias", "epb", True),
    (rf"{CPU}/online", "online_mask", False),
    (rf"{CPU}/offline", "offline_mask", False),
    (LEGACY_PROFILE, "legacy_profile", True),
    (LEGACY_CHOICES, "legacy_choices", False),
    (LAPMODE, "lapmode", False),
    (r"sys/devices/.+/power_supply/([^/]+)/charge_type", "charge_type", True),
    (r"sys/devices/.+/power_supply/([^/]+)/charge_types", "charge_types", True),
    (r"sys/devices/.+/power_supply/([^/]+)/online", "supply_online", False),
    (r"sys/devices/.+/drm/card\d+/(card\d+-[^/]+)/amdgpu/panel_power_savings", "panel_power", True),
    (r"sys/devices/(.+)/power_dpm_force_performance_level", "dpm_level", True),
    (r"sys/class/powercap/intel-rapl:(\d+)/energy_uj", "energy", False),
    (r"sys/class/powercap/intel-rapl:(\d+):(\d+)/energy_uj", "energy", False),
    (f"{CONTROL_DIR}/control", "control", True),
    (f"{CONTROL_DIR}/hardware", "hardware", False),
]
ATTRIBUTES = [(re.compile(pattern), name, writable) for pattern, name, writable in ATTRIBUTES]
POLICY_ATTRIBUTES = {name for _, name, _ in POLICY_FILES} | {"policy_boost"}
CPU_ATTRIBUTES = {"online", "epb"}


@functools.lru_cache(maxsize=None)
def match_attribute(rel):
    """The attribute pattern a path matches: (name, what the path names
    (numbers as numbers, names as text), writable), or None. Paths never change what they match, and the kernel
    asks about the same few thousand paths again and again (no entry or
    attribute caching), so the answers are kept."""
    for pattern, name, writable in ATTRIBUTES:
        match = pattern.fullmatch(rel)
        if match:
            return name, tuple(int(g) if g.isdigit() else g for g in match.groups()), writable
    return None


# The power model behind the energy counters: each online CPU of an active
# policy draws IDLE_WATTS plus up to EPP_WATTS more the faster its hardware
# EPP asks it to be (0: all of it, 255: none). A zone's counter counts the
# package's power times its share: psys (the platform) the package plus
# PLATFORM_WATTS, the cores 70%, the uncore 10%.
IDLE_WATTS = 0.25
EPP_WATTS = 1.0
PLATFORM_WATTS = 2.0
ZONE_SHARE = {"core": 0.7, "uncore": 0.1}


def package_watts(epps):
    """The package's power for the hardware EPPs of the online CPUs."""
    return sum(IDLE_WATTS + EPP_WATTS * (255 - (128 if e is None else e)) / 255 for e in epps)


def fail(code):
    """The errno a store or show function returns."""
    return FuseOSError(code)


# -- the kernel's parsers --------------------------------------------------

def first_word(text, width):
    """sscanf(buf, "%<width>s"): the first word, or None."""
    match = re.match(rf"[{SPACE}]*([^{SPACE}]+)", text)
    return match.group(1)[:width] if match else None


def sscanf_unsigned(text):
    """sscanf(buf, "%u"): white space, then digits; the rest is ignored."""
    match = re.match(rf"[{SPACE}]*(\d+)", text)
    if not match:
        raise fail(errno.EINVAL)
    return int(match.group(1))


def kstrtoul(text, base=10, limit=U32_MAX):
    """kstrtouint() and friends: the whole text is the number (one trailing
    newline allowed, a leading `+` too); base 0 reads 0x.. as hex and 0.. as
    octal; a number above `limit` is ERANGE."""
    if text.endswith("\n"):
        text = text[:-1]
    if text.startswith("+"):
        text = text[1:]
    if base == 0:
        if text[:2].lower() == "0x" and len(text) > 2:
            base, text = 16, text[2:]
        elif text.startswith("0"):
            base = 8
        else:
            base = 10
    digits = {8: "0-7", 10: "0-9", 16: "0-9a-fA-F"}[base]
    if not re.fullmatch(f"[{digits}]+", text):
        raise fail(errno.EINVAL)
    value = int(text, base)
    if value > limit:
        raise fail(errno.ERANGE)
    return value


def kstrtoint(text, base=0):
    """kstrtoint(): kstrtoul() with an optional minus sign."""
    if text.startswith("-"):
        return -kstrtoul(text[1:], base, S32_MAX + 1)
    return kstrtoul(text, base, S32_MAX)


def kstrtobool(text):
    """kstrtobool(): only the first one or two characters count."""
    head = text[:2].lower()
    if head[:1] in ("y", "t", "1"):
        return True
    if head[:1] in ("n", "f", "0"):
        return False
    if head == "on":
        return True
    if head == "of":
        return False
    raise fail(errno.EINVAL)


def match_string(names, text):
    """sysfs_match_string(): the name the text is (a trailing newline allowed)."""
    word = text[:-1] if text.endswith("\n") else text
    return word if word in names else None


def cpu_list(cpus):
    """CPUs as the kernel prints a mask: 0-3,6."""
    ranges, cpus = [], sorted(cpus)
    for cpu in cpus:
        if ranges and ranges[-1][1] == cpu - 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def parse_cpu_list(text):
    cpus = set()
    for part in (text or "").strip().split(","):
        if re.fullmatch(r"\d+", part):
            cpus.add(int(part))
        elif re.fullmatch(r"\d+-\d+", part):
            a, b = map(int, part.split("-"))
            cpus.update(range(a, b + 1))
    return cpus


# -- reading the backing tree (paths relative to the working directory) ----

def read_text(rel):
    try:
        with open(rel, encoding="latin-1") as f:
            return f.read().strip()
    except OSError:
        return None


def read_int(rel):
    text = read_text(rel)
    return int(text) if text and text.isdigit() else None


class Policy:
    """One cpufreq policy: what the kernel caches for it and what its
    register (HWP_REQUEST, CPPC_REQ) holds."""

    def __init__(self, number, cpus):
        self.number = number
        self.cpus = cpus
        self.boot_epp = None  # what `default` restores and a newly registered driver starts with
        self.epp = None  # the driver's cached EPP: what energy_performance_preference shows
        self.hardware_epp = None  # what the register holds
        self.saved_epp = None  # the EPP from before the performance governor
        self.governor = ""
        self.fixture_driver = None
        self.fixture_governors = None  # the fixture's list, when its driver has governors
        self.min_request = None  # the user's scaling_min_freq (None: the default, no floor)
        self.max_request = None  # the user's scaling_max_freq (None: no ceiling)
        self.cpuinfo_min = None
        self.turbo_max = None  # cpuinfo_max_freq with turbo on
        self.base = None  # base_frequency: the most without turbo
        # amd-pstate 7.1: the last EPP write was a number (cpudata->raw_epp),
        # so the file shows the number, whatever the value.
        self.raw_epp = False
        self.boot_boost = None  # the per-policy `boost` file of the fixture (None: no file)
        self.boost = None


class ProfileHandler:
    """One platform profile handler: a platform-profile-N class device, or
    (before 6.14) the one handler behind the legacy files."""

    def __init__(self, name, choices, profile, driver=None, entry=None, device=None, names=PROFILE_NAMES,
                 hidden=(), cpu=None):
        self.name = name  # platform-profile-N, or "legacy"
        self.choices = {c for c in choices if c in names}
        # Hidden choices (6.14): taken through the legacy file only.
        self.hidden = {c for c in hidden if c in names}
        self.profile = profile
        self.driver = driver  # what the class device's `name` shows
        self.entry = entry  # sys/class/platform-profile/platform-profile-N
        self.device = device  # the directory the entry links to (the entry itself if no link)
        self.cpu = cpu  # amd-pstate's per-CPU handler: the CPU whose policy's EPP it sets


class Kernel:
    """The state the kernel keeps, and its show and store functions. Every
    method runs under KernelFs's lock; paths are relative to BACKING."""

    def __init__(self, config):
        # Runs before the mount: the only place that may resolve paths to
        # absolute ones (after the mount they could lead into the mount).
        config = config or self._json("kernelfs.json")
        self.names = config.get("epp_names") or GENERIC_EPP
        release = re.match(r"(\d+)\.(\d+)", read_text("proc/sys/kernel/osrelease") or "")
        self.version = (int(release.group(1)), int(release.group(2))) if release else (0, 0)
        self.started = time.time()
        # The energy counters' model (advance_energy): joules the package has
        # drawn since the start, up to energy_clock.
        self.started_monotonic = self.energy_clock = time.monotonic()
        self.package_joules = 0.0
        # Counts driver registrations: a policy file opened before the last
        # one belongs to a policy that is gone (ENODEV), even where a new
        # file of the same name exists now.
        self.generation = 0

        if os.path.exists(f"{INTEL}/status"):
            self.family, self.mode = "intel", read_text(f"{INTEL}/status")
        elif os.path.exists(f"{AMD}/status"):
            self.family, self.mode = "amd", read_text(f"{AMD}/status")
        else:
            self.family, self.mode = None, None
        self.no_turbo = read_int(f"{INTEL}/no_turbo") or 0
        self.hwp_boost = read_int(f"{INTEL}/hwp_dynamic_boost") or 0
        # amd-pstate's dynamic EPP (7.1): None where the tree has no file.
        dynamic = read_text(DYNAMIC_EPP) if self.family == "amd" else None
        self.dynamic_epp = dynamic == "enabled" if dynamic in ("enabled", "disabled") else None

        # CPUs: online state (no `online` file: not hotpluggable, always on),
        # the energy bias, and which policy each belongs to.
        self.online, self.hotpluggable, self.epb, policy_of = {}, set(), {}, {}
        for entry in os.listdir(CPU) if os.path.isdir(CPU) else []:
            match = re.fullmatch(r"cpu(\d+)", entry)
            if not match:
                continue
            cpu = int(match.group(1))
            online = read_text(f"{CPU}/{entry}/online")
            self.online[cpu] = online != "0"
            if online is not None:
                self.hotpluggable.add(cpu)
            epb = read_int(f"{CPU}/{entry}/power/energy_perf_bias")
            if epb is not None:
                self.epb[cpu] = epb
            link = f"{CPU}/{entry}/cpufreq"
            if os.path.islink(link):
                policy = re.fullmatch(r"policy(\d+)", os.path.basename(os.readlink(link)))
                if policy:
                    policy_of.setdefault(int(policy.group(1)), []).append(cpu)
        self.fixture_offline = parse_cpu_list(read_text(f"{CPU}/offline"))

        self.policies = {}
        for entry in os.listdir(CPUFREQ) if os.path.isdir(CPUFREQ) else []:
            match = re.fullmatch(r"policy(\d+)", entry)
            if match:
                number = int(match.group(1))
                self.policies[number] = self._read_policy(number, policy_of.get(number, [number]))
        self.hwp = self.family == "intel" and (
            os.path.exists(f"{INTEL}/hwp_dynamic_boost") or any(p.boot_epp is not None for p in self.policies.values()))
        for policy in self.policies.values():
            if policy.boot_epp is None and (self.family == "amd" or self.hwp):
                # Booted without the EPP files (amd-pstate in passive mode): the
                # driver will start at its default.
                policy.boot_epp = self.epp_table().get("balance_performance", 128)
            policy.epp = policy.boot_epp
            policy.hardware_epp = self._register_value(policy)
            if policy.governor not in ALL_GOVERNORS:
                # A placeholder of the fixture's inactive policy: the driver's default.
                policy.governor = self.default_governor(policy)
        # Inactive policies of the fixture have no frequencies: like the first one's.
        complete = [p for _, p in sorted(self.policies.items()) if p.cpuinfo_min and p.turbo_max]
        for policy in self.policies.values():
            if complete and not (policy.cpuinfo_min and policy.turbo_max):
                policy.cpuinfo_min, policy.turbo_max, policy.base = \
                    complete[0].cpuinfo_min, complete[0].turbo_max, complete[0].base

        # What the kernel adds and removes after the start (late drivers),
        # kept in memory: directories (None) and links (their target) the
        # tree lacks, the names they add to their directories, and paths of
        # the tree that are gone.
        self.virtual, self.extra_names, self.removed = {}, {LEGACY_DIR: {"platform_profile",
                                                                      "platform_profile_choices"}}, set()
        # The files that a store or command has notified (sysfs_notify()).
        self.pending = []
        # Injected faults (`fail-writes`): path -> [writes that still work, errno].
        self.faults = {}
        # Writes that take a while (`slow-writes`): path -> seconds.
        self.slow = {}
        self.lapmode = read_int(LAPMODE)  # None: no lap sensor
        self._read_profiles()
        self._read_devices()

    def _read_devices(self):
        """Power supplies with a charge type, amdgpu's eDP connectors and
        GPUs, found through their sys/class links (resolved now, before
        the mount) and keyed as their paths name them."""
        self.supplies = {}  # name -> [current, types its driver takes]
        for name in sorted(os.listdir("sys/class/power_supply")) if os.path.isdir("sys/class/power_supply") else []:
            current = read_text(f"sys/class/power_supply/{name}/charge_type")
            offered = read_text(f"sys/class/power_supply/{name}/charge_types")
            if offered is not None:
                types = tuple(w.strip("[]") for w in offered.split())
                current = current or next((w.strip("[]") for w in offered.split() if w.startswith("[")), None)
            else:
                types = DRIVER_CHARGE_TYPES.get(name, CHARGE_TYPES[2:])
            if current in CHARGE_TYPES:
                self.supplies[name] = [current, types]
        # The charger: AC (or the first supply of type Mains) and whether it is
        # online; none means on AC, as power_supply_is_system_supplied() says
        # when no supply counts.
        self.mains, self.ac_online = None, None
        names = sorted(os.listdir("sys/class/power_supply")) if os.path.isdir("sys/class/power_supply") else []
        for name in sorted(names, key=lambda n: n != "AC"):
            online = read_int(f"sys/class/power_supply/{name}/online")
            if online is not None and (name == "AC" or read_text(f"sys/class/power_supply/{name}/type") == "Mains"):
                self.mains, self.ac_online = name, 1 if online else 0
                break
        self.panels, self.gpus = {}, {}  # connector -> level; GPU device path -> level
        for name in sorted(os.listdir("sys/class/drm")) if os.path.isdir("sys/class/drm") else []:
            link = f"sys/class/drm/{name}"
            savings = read_int(f"{link}/amdgpu/panel_power_savings")
            if savings is not None:
                self.panels[name] = savings
            level = read_text(f"{link}/device/power_dpm_force_performance_level")
            if level is not None and os.path.islink(f"{link}/device"):
                device = os.path.relpath(os.path.realpath(f"{link}/device"), os.getcwd())
                self.gpus[device.removeprefix("sys/devices/")] = level

    @staticmethod
    def _json(rel):
        try:
            with open(rel) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def _read_policy(self, number, cpus):
        base = f"{CPUFREQ}/policy{number}"
        policy = Policy(number, cpus)
        related = read_text(f"{base}/related_cpus")
        if related:
            policy.cpus = [int(c) for c in related.split() if c.isdigit()]
        policy.governor = read_text(f"{base}/scaling_governor") or ""
        policy.fixture_driver = read_text(f"{base}/scaling_driver")
        if policy.fixture_driver not in ("intel_pstate", "amd-pstate-epp"):
            policy.fixture_governors = (read_text(f"{base}/scaling_available_governors") or "").split() or None
        text = read_text(f"{base}/energy_performance_preference")
        if text is not None:
            table = AMD_EPP if self.family == "amd" else self.names
            policy.boot_epp = table.get(text, int(text) if text.isdigit() else None)
            if policy.boot_epp is None:
                policy.boot_epp = table.get("balance_performance", 128)
        boost = read_text(f"{base}/boost")
        if boost in ("0", "1"):
            policy.boot_boost = policy.boost = int(boost)
        policy.cpuinfo_min = read_int(f"{base}/cpuinfo_min_freq")
        policy.turbo_max = read_int(f"{base}/cpuinfo_max_freq")
        policy.base = read_int(f"{base}/base_frequency")
        # A request equal to the hardware limit is the default (none).
        shown_min, shown_max = read_int(f"{base}/scaling_min_freq"), read_int(f"{base}/scaling_max_freq")
        if shown_min is not None and policy.cpuinfo_min is not None and shown_min > policy.cpuinfo_min:
            policy.min_request = shown_min
        if shown_max is not None and policy.turbo_max is not None and shown_max < policy.turbo_max:
            policy.max_request = shown_max
        return policy

    def _read_profiles(self):
        """Platform profile handlers: the class devices, or (before 6.14)
        the one legacy handler behind firmware/acpi/platform_profile."""
        self.profiles, self.profile_files = [], {}
        self.profile_class = os.path.isdir(PROFILE_CLASS) and bool(os.listdir(PROFILE_CLASS))
        if self.profile_class:
            here = os.getcwd()
            for entry in sorted(os.listdir(PROFILE_CLASS)):
                directory = f"{PROFILE_CLASS}/{entry}"
                # The class entry is usually a link to the device: serve both paths.
                real = os.path.relpath(os.path.realpath(directory), here)
                driver = read_text(f"{directory}/name") or ""
                # amd-pstate's per-CPU handler (7.1) sets its CPU's EPP.
                cpu = re.fullmatch(CPU_PROFILE_NAME.format(cpu=r"(\d+)"), driver)
                handler = ProfileHandler(entry, (read_text(f"{directory}/choices") or "").split(),
                                         read_text(f"{directory}/profile") or "", driver, directory, real,
                                         self.profile_names(), self.hidden_choices(driver),
                                         int(cpu.group(1)) if cpu else None)
                self._add_handler(handler)
        elif os.path.exists(LEGACY_PROFILE):
            self.profiles.append(ProfileHandler("legacy", (read_text(LEGACY_CHOICES) or "").split(),
                                                read_text(LEGACY_PROFILE) or "", names=self.profile_names()))

    def profile_names(self):
        """The platform profile names this kernel knows: `max-power` since
        6.19 (and where the version is unknown)."""
        if self.version == (0, 0) or self.version >= MAX_POWER_KERNEL:
            return PROFILE_NAMES
        return tuple(n for n in PROFILE_NAMES if n != "max-power")

    def hidden_choices(self, driver):
        """A class handler's hidden choices (6.14+), by its driver's name."""
        if self.version != (0, 0) and self.version < CLASS_KERNEL:
            return ()
        return HIDDEN_CHOICES.get(driver, ())

    def _add_handler(self, handler):
        self.profiles.append(handler)
        for attribute in ("name", "profile", "choices"):
            self.profile_files[f"{handler.entry}/{attribute}"] = (handler, attribute)
            self.profile_files[f"{handler.device}/{attribute}"] = (handler, attribute)

    # -- the state ---------------------------------------------------------
    @property
    def registered(self):
        """Whether a cpufreq driver of the modelled family is registered."""
        return self.mode not in ("off", "disable")

    def active(self, policy):
        """A policy is active while one of its CPUs is online."""
        return any(self.online.get(cpu, True) for cpu in policy.cpus)

    def driver(self, policy):
        if self.family == "intel":
            return "intel_pstate" if self.mode == "active" else "intel_cpufreq"
        if self.family == "amd":
            return "amd-pstate-epp" if self.mode == "active" else "amd-pstate"
        return policy.fixture_driver

    def setpolicy(self, policy):
        """Drivers that choose frequencies themselves offer only the
        performance and powersave policies, not governors."""
        return self.driver(policy) in ("intel_pstate", "amd-pstate-epp")

    def default_governor(self, policy):
        return "powersave" if self.setpolicy(policy) else "schedutil"

    def governors(self, policy):
        if self.setpolicy(policy):
            return ["performance", "powersave"]
        return policy.fixture_governors or list(ALL_GOVERNORS)

    def epp_exposed(self, policy):
        """Whether the policy has energy_performance_preference now."""
        if not self.registered:
            return False
        if self.family == "intel":
            return self.hwp
        if self.family == "amd":
            return self.mode == "active"
        return policy.boot_epp is not None

    def epp_table(self):
        return AMD_EPP if self.family == "amd" else self.names

    def amd_raw(self):
        """amd-pstate 7.1+: raw EPP numbers and `custom` (an unknown version: not)."""
        return self.family == "amd" and self.version >= AMD_RAW_EPP_KERNEL

    def dynamic_active(self):
        """Whether amd-pstate-epp runs with dynamic EPP now (the policies of
        the active mode have it; other modes clear it)."""
        return bool(self.dynamic_epp) and self.family == "amd" and self.mode == "active"

    def on_ac(self):
        return self.ac_online is None or self.ac_online == 1

    def balanced_epp(self):
        """amd_pstate_get_balanced_epp(): epp_default_ac or epp_default_dc."""
        return AMD_BALANCED_EPP[self.on_ac()]

    def _cpu_policy(self, cpu):
        return next((p for p in self.policies.values() if cpu in p.cpus), self.policies.get(cpu))

    def _set_dynamic_epp(self, policy, value):
        """amd_pstate_set_epp() from the driver itself (dynamic EPP, a per-CPU
        platform profile): the cache and the register, no EPP file write."""
        policy.epp = value
        policy.raw_epp = False
        if self.active(policy):
            policy.hardware_epp = value

    def _register_value(self, policy):
        """What the register of a policy holds, from the driver's cache."""
        if not self.epp_exposed(policy):
            return None
        if not self.active(policy) and self.family == "intel":
            return EPP_OFFLINE
        return policy.epp

    def _apply(self, policy):
        """The driver's setpolicy(): drivers without governors write the whole
        register again (with the cached EPP) on any policy change."""
        if self.setpolicy(policy) and self.active(policy) and self.epp_exposed(policy):
            policy.hardware_epp = policy.epp

    def cpuinfo_max(self, policy):
        """Since 6.11 cpuinfo_max_freq follows no_turbo."""
        if self.family == "intel" and self.no_turbo and policy.base and self.version >= (6, 11):
            return policy.base
        return policy.turbo_max

    def limits(self, policy):
        """The policy's min and max: the requests clamped into the hardware
        limits (intel_pstate's verify() also caps at the base frequency
        while turbo is off), min never above max."""
        low, high = policy.cpuinfo_min or 0, self.cpuinfo_max(policy)
        if high is None:
            return None, None
        if self.family == "intel" and self.no_turbo and policy.base:
            high = min(high, policy.base)
        top = min(max(policy.max_request if policy.max_request is not None else high, low), high)
        bottom = min(max(policy.min_request or 0, low), top)
        return bottom, top

    def set_governor(self, policy, name):
        if self.setpolicy(policy) and self.epp_exposed(policy):
            # Entering performance forces EPP 0; leaving it gives the saved value back.
            if name == "performance" and policy.governor != "performance":
                policy.saved_epp, policy.epp = policy.epp, 0
            elif name != "performance" and policy.governor == "performance" and policy.saved_epp is not None:
                policy.epp, policy.saved_epp = policy.saved_epp, None
        policy.governor = name
        self._apply(policy)

    def register(self, mode):
        """A (re-)registered driver: every policy is created again, with the
        driver's default governor, no frequency requests, and the EPP of
        boot in active mode (real machines lost the written EPP on
        active -> passive -> active); passive intel_cpufreq keeps the EPP the
        driver had cached."""
        self.mode = mode
        self.generation += 1
        if self.family == "intel":
            self.no_turbo = 0  # intel_pstate_register_driver() clears its globals
        for policy in self.policies.values():
            if policy.saved_epp is not None:
                policy.epp, policy.saved_epp = policy.saved_epp, None
            policy.min_request = policy.max_request = None
            policy.governor = self.default_governor(policy)
            if mode == "active":
                policy.epp = policy.boot_epp
            policy.raw_epp = False  # a new cpudata
            policy.boost = policy.boot_boost
            policy.hardware_epp = self._register_value(policy)
        self._sync_cpu_profiles()

    def _sync_cpu_profiles(self):
        """amd-pstate 7.1: the driver's exit removes every per-CPU platform
        profile handler; its init with dynamic EPP on sets each active
        policy's EPP to the balanced value and registers a handler for the
        policy's CPU below that CPU's device, at `balanced`."""
        for handler in [h for h in self.profiles if h.cpu is not None]:
            self._unregister_handler(handler)
        if not self.dynamic_active():
            return
        for number, policy in sorted(self.policies.items()):
            if not self.active(policy):
                continue
            self._set_dynamic_epp(policy, self.balanced_epp())
            self._register_class_handler(CPU_PROFILE_NAME.format(cpu=number), tuple(CPU_PROFILE_EPP), "balanced",
                                         f"{CPU}/cpu{number}", cpu=number)

    def set_online(self, cpu, online):
        if cpu not in self.hotpluggable:
            raise fail(errno.EINVAL)
        policies = [p for p in self.policies.values() if cpu in p.cpus]
        before = {p.number: self.active(p) for p in policies}
        self.online[cpu] = online
        for policy in policies:
            if before[policy.number] != self.active(policy) and self.epp_exposed(policy):
                # Going offline intel_pstate asks for the least power; coming
                # back it writes its cached request again.
                policy.hardware_epp = self._register_value(policy)

    # -- show and store ----------------------------------------------------
    def route(self, rel):
        """The modelled attribute at a path: (handler, arguments, writable)."""
        if rel in self.profile_files:
            handler, attribute = self.profile_files[rel]
            return "class_" + attribute, (handler,), attribute == "profile"
        matched = match_attribute(rel)
        if matched is None:
            return None
        name, args, writable = matched
        if name in POLICY_ATTRIBUTES:
            if args[0] not in self.policies:
                return None
            args = (self.policies[args[0]],)
        if name in CPU_ATTRIBUTES and args[0] not in self.online:
            return None
        if name == "supply_online" and args[0] != self.mains:
            return None  # another supply's: passed through
        return name, args, writable

    def hidden(self, rel):
        """Whether a path of the backing tree is gone in the current state:
        the policies and the cpuN/cpufreq links while no driver is registered,
        and what an unloaded platform profile driver took away."""
        if self.removed and any(rel == p or rel.startswith(p + "/") for p in self.removed):
            return True
        if self.registered:
            return False
        match = re.match(rf"{POLICY_DIR}(/|$)", rel)
        if match and int(match.group(1)) in self.policies:
            return True
        return re.fullmatch(rf"{CPU}/cpu\d+/cpufreq", rel) is not None

    def busy(self, rel):
        """Every file of an inactive policy answers EBUSY."""
        match = re.match(rf"{POLICY_DIR}/", rel)
        policy = self.policies.get(int(match.group(1))) if match else None
        return policy is not None and not self.active(policy)

    def node(self, rel):
        """What a path is now: None (absent), ("dir", False) for the virtual
        directory, ("attribute", writable), or ("backing", None)."""
        if rel == CONTROL_DIR:
            return "dir", False
        if self.hidden(rel):
            return None
        if rel in self.virtual:
            return ("dir", False) if self.virtual[rel] is None else ("link", None)
        attribute = self.route(rel)
        if attribute:
            name, args, writable = attribute
            exists = getattr(self, "exists_" + name, None)
            present = exists(*args) if exists else os.path.lexists(rel)
            return ("attribute", writable) if present else None
        if rel.startswith(CONTROL_DIR + "/"):
            return None
        return ("backing", None) if os.path.lexists(rel or ".") else None

    def listdir(self, rel):
        if rel == CONTROL_DIR:
            names = {"control", "hardware"}
        else:
            names = set(os.listdir(rel or ".")) if rel not in self.virtual and os.path.isdir(rel or ".") else set()
            names |= self.extra_names.get(rel, set())
            if rel == "":
                names.add(CONTROL_DIR)
            elif re.fullmatch(POLICY_DIR, rel):
                names.update(file for file, _, _ in POLICY_FILES)
            elif rel == INTEL:
                names.add("hwp_dynamic_boost")
            elif re.fullmatch(r"sys/class/powercap/intel-rapl:\d+(:\d+)?", rel):
                names.add("energy_uj")
        return sorted(n for n in names if self.node(f"{rel}/{n}" if rel else n) is not None)

    def show(self, name, args):
        return getattr(self, "show_" + name)(*args)

    def store(self, name, args, text):
        # The energy counters count at the power before the change until now.
        self.advance_energy()
        getattr(self, "store_" + name)(*args, text)

    # RAPL energy counters
    def advance_energy(self):
        """Adds the package's energy since the last change, at the power of
        the EPPs the hardware held meanwhile."""
        now = time.monotonic()
        epps = [p.hardware_epp for p in self.policies.values() if self.active(p) for cpu in p.cpus
                if self.online.get(cpu, True)]
        self.package_joules += package_watts(epps) * (now - self.energy_clock)
        self.energy_clock = now

    def exists_energy(self, *zone):
        """energy_uj is root-only on a real machine, so snapshots lack it:
        every zone with a name has one."""
        return os.path.exists("sys/class/powercap/intel-rapl:" + ":".join(str(z) for z in zone) + "/name")

    def show_energy(self, *zone):
        self.advance_energy()
        directory = "sys/class/powercap/intel-rapl:" + ":".join(str(z) for z in zone)
        name = (read_text(f"{directory}/name") or "").strip()
        start = read_int(f"{directory}/energy_uj") or 0
        top = read_int(f"{directory}/max_energy_range_uj") or U32_MAX
        if name == "psys":
            joules = self.package_joules + PLATFORM_WATTS * (time.monotonic() - self.started_monotonic)
        else:
            joules = self.package_joules * ZONE_SHARE.get(name, 1.0 if name.startswith("package") else 0.0)
        return f"{(start + int(joules * 1e6)) % (top + 1)}\n"

    # cpufreq policies
    def exists_driver(self, policy):
        return self.driver(policy) is not None

    exists_governor = exists_available_governors = exists_driver

    def exists_epp(self, policy):
        return self.epp_exposed(policy)

    exists_epp_choices = exists_epp

    def exists_max_freq(self, policy):
        return policy.cpuinfo_min is not None and policy.turbo_max is not None

    exists_min_freq = exists_cpuinfo_max_freq = exists_max_freq

    def show_governor(self, policy):
        return policy.governor + "\n"

    def store_governor(self, policy, text):
        word = first_word(text, 15)
        if word is None:
            raise fail(errno.EINVAL)
        # cpufreq_parse_policy() and find_governor() compare without case.
        name = next((g for g in self.governors(policy) if g.lower() == word.lower()), None)
        if name is None:
            raise fail(errno.EINVAL)
        self.set_governor(policy, name)

    def show_available_governors(self, policy):
        # show_scaling_available_governors(): the two policies without a
        # space at the end, governors each followed by one.
        if self.setpolicy(policy):
            return "performance powersave\n"
        return "".join(g + " " for g in self.governors(policy)) + "\n"

    def show_driver(self, policy):
        return f"{self.driver(policy)}\n"

    def show_epp(self, policy):
        value = policy.epp
        if self.family == "amd":
            # 7.1: the number when the last write was one (cpudata->raw_epp).
            if policy.raw_epp and self.amd_raw():
                return f"{value}\n"
            # Otherwise names only: another value cannot be shown.
            name = next((n for n, v in AMD_EPP.items() if v == value), None)
            if name is None:
                raise fail(errno.EINVAL)
            return name + "\n"
        name = next((n for n in EPP_STRINGS[1:] if self.names.get(n) == value), None)
        return f"{name or value}\n"

    def store_epp(self, policy, text):
        if self.amd_raw():
            self.store_amd_epp(policy, text)
            return
        word = first_word(text, 20)
        if word is None:
            raise fail(errno.EINVAL)
        table = self.epp_table()
        if word in EPP_STRINGS:
            value = policy.boot_epp if word == "default" else table[word]
        elif self.family == "amd":
            raise fail(errno.EINVAL)
        else:
            value = kstrtoul(text)
            if value > 255:
                raise fail(errno.EINVAL)
        if self.setpolicy(policy):
            if value > 0 and policy.governor == "performance":
                raise fail(errno.EBUSY)
            policy.epp = policy.hardware_epp = value
        elif value != policy.epp:
            # intel_cpufreq skips a write of the value it has cached (it
            # would have to stop the governor for it).
            policy.epp = policy.hardware_epp = value

    def store_amd_epp(self, policy, text):
        """amd-pstate 7.1: EBUSY while dynamic EPP is on (before anything is
        parsed); a number 0..255 (kstrtou8, base 0) before the names
        (sysfs_match_string: exactly, one trailing newline); `custom` is
        EINVAL; `default` is the balanced EPP of the power source."""
        if self.dynamic_active():
            raise fail(errno.EBUSY)
        try:
            value, raw = kstrtoul(text, 0, 255), True
        except FuseOSError:
            name = match_string(EPP_STRINGS, text)
            if name is None:
                raise fail(errno.EINVAL)  # `custom` too: it is no name to write
            value, raw = (self.balanced_epp() if name == "default" else AMD_EPP[name]), False
        if value > 0 and policy.governor == "performance":
            raise fail(errno.EBUSY)
        policy.epp = policy.hardware_epp = value
        policy.raw_epp = raw

    def show_epp_choices(self, policy):
        names = EPP_STRINGS + ("custom",) if self.amd_raw() else EPP_STRINGS
        return "".join(name + " " for name in names) + "\n"

    def show_max_freq(self, policy):
        return f"{self.limits(policy)[1]}\n"

    def show_min_freq(self, policy):
        return f"{self.limits(policy)[0]}\n"

    def store_max_freq(self, policy, text):
        policy.max_request = min(sscanf_unsigned(text), S32_MAX)
        self._apply(policy)

    def store_min_freq(self, policy, text):
        policy.min_request = min(sscanf_unsigned(text), S32_MAX)
        self._apply(policy)

    def show_cpuinfo_max_freq(self, policy):
        return f"{self.cpuinfo_max(policy)}\n"

    # intel_pstate
    def show_intel_status(self):
        return f"{self.mode}\n"

    def store_intel_status(self, text):
        mode = text.split("\n", 1)[0]
        if mode == "off":
            if not self.registered:
                raise fail(errno.EINVAL)
            if self.hwp:
                raise fail(errno.EBUSY)  # HWP cannot be switched off again
            self.mode = "off"
        elif mode in ("active", "passive"):
            if mode != self.mode:
                self.register(mode)
        else:
            raise fail(errno.EINVAL)

    def show_no_turbo(self):
        if not self.registered:
            raise fail(errno.EAGAIN)
        return f"{self.no_turbo}\n"

    def store_no_turbo(self, text):
        value = sscanf_unsigned(text) & U32_MAX
        if not self.registered:
            raise fail(errno.EAGAIN)
        no_turbo = 0 if value == 0 or value > S32_MAX else 1  # clamp_t(int, input, 0, 1)
        if no_turbo != self.no_turbo:
            self.no_turbo = no_turbo
            for policy in self.policies.values():
                self._apply(policy)

    def exists_hwp_boost(self):
        return self.family == "intel" and self.hwp and self.mode == "active"

    def show_hwp_boost(self):
        return f"{self.hwp_boost}\n"

    def store_hwp_boost(self, text):
        self.hwp_boost = 1 if kstrtoul(text) else 0
        for policy in self.policies.values():
            self._apply(policy)

    # amd-pstate
    def show_amd_status(self):
        return f"{self.mode}\n"

    def store_amd_status(self, text):
        mode = text.split("\n", 1)[0]
        if mode not in ("active", "passive", "guided", "disable"):
            raise fail(errno.EINVAL)
        if mode == self.mode:
            return
        if mode == "disable":
            self.mode = mode
            self._sync_cpu_profiles()  # the driver's exit removes its handlers
        elif {mode, self.mode} == {"passive", "guided"}:
            self.mode = mode  # the same driver (amd-pstate): nothing is recreated
        else:
            self.register(mode)

    def exists_dynamic_epp(self):
        return self.dynamic_epp is not None

    def show_dynamic_epp(self):
        return "enabled\n" if self.dynamic_epp else "disabled\n"

    def store_dynamic_epp(self, text):
        """dynamic_epp_store(): kstrtobool() (`enabled` and `disabled` by
        their first letter too), EINVAL outside active mode, nothing to do
        for the current state; a change registers the driver again."""
        if text[:1].lower() in ("e", "d"):
            enabled = text[:1].lower() == "e"
        else:
            enabled = kstrtobool(text)
        if self.mode != "active":
            raise fail(errno.EINVAL)
        if enabled == self.dynamic_epp:
            return
        self.dynamic_epp = enabled
        self.register(self.mode)

    # the per-policy boost (cpufreq core, amd-pstate 6.11+), where the tree has it
    def exists_policy_boost(self, policy):
        return policy.boost is not None

    def show_policy_boost(self, policy):
        return f"{policy.boost}\n"

    def store_policy_boost(self, policy, text):
        policy.boost = 1 if kstrtobool(text) else 0

    # CPUs
    def show_online(self, cpu):
        return "1\n" if self.online[cpu] else "0\n"

    def store_online(self, cpu, text):
        self.set_online(cpu, kstrtobool(text))

    def show_online_mask(self):
        return cpu_list(c for c, on in self.online.items() if on) + "\n"

    def show_offline_mask(self):
        offline = {c for c, on in self.online.items() if not on}
        absent = self.fixture_offline - set(self.online)  # possible but not present
        return cpu_list(offline | absent) + "\n"

    def exists_epb(self, cpu):
        # intel_epb adds the attribute when a CPU comes online and removes it when it goes.
        return cpu in self.epb and self.online[cpu]

    def show_epb(self, cpu):
        return f"{self.epb[cpu]}\n"

    def store_epb(self, cpu, text):
        name = match_string(EPB_STRINGS, text)
        if name is not None:
            value = EPB_STRINGS[name]
        else:
            try:
                value = kstrtoint(text)
            except FuseOSError:
                raise fail(errno.EINVAL)
            if not 0 <= value <= 15:
                raise fail(errno.EINVAL)
        self.epb[cpu] = value

    # power supplies (power_supply_store_property()): the name is matched
    # against every charge type the kernel knows (EINVAL if none), then the
    # driver refuses a type it cannot do (EINVAL)
    def exists_charge_type(self, name):
        return name in self.supplies

    def show_charge_type(self, name):
        return self.supplies[name][0] + "\n"

    def store_charge_type(self, name, text):
        kind = match_string(CHARGE_TYPES, text)
        if kind is None or kind not in self.supplies[name][1]:
            raise fail(errno.EINVAL)
        self.supplies[name][0] = kind

    def exists_charge_types(self, name):
        return name in self.supplies and os.path.lexists(f"sys/class/power_supply/{name}/charge_types")

    def show_charge_types(self, name):
        current, types = self.supplies[name]
        return " ".join(f"[{t}]" if t == current else t for t in types) + "\n"

    store_charge_types = store_charge_type

    # the charger's `online` (0444): what the `ac` command changes
    def show_supply_online(self, name):
        return f"{self.ac_online}\n"

    # amdgpu: the panel's adaptive backlight level (0 is off) and the GPU's
    # forced power management level
    def exists_panel_power(self, connector):
        return connector in self.panels

    def show_panel_power(self, connector):
        return f"{self.panels[connector]}\n"

    def store_panel_power(self, connector, text):
        value = kstrtoint(text, 0)  # kstrtol(): EINVAL or ERANGE as it says
        if not 0 <= value <= PANEL_POWER_MAX:
            raise fail(errno.EINVAL)
        self.panels[connector] = value

    def exists_dpm_level(self, device):
        return device in self.gpus

    def show_dpm_level(self, device):
        return self.gpus[device] + "\n"

    def store_dpm_level(self, device, text):
        level = next((w for w in DPM_LEVELS if text.startswith(w)), None)
        if level is None:
            raise fail(errno.EINVAL)
        self.gpus[device] = "auto" if level == "profile_exit" else level

    # the ACPI platform profile
    def common_choices(self):
        """_aggregate_choices(): what every handler takes, its hidden choices too."""
        choices = set(PROFILE_NAMES)
        for handler in self.profiles:
            choices &= handler.choices | handler.hidden
        return choices

    @staticmethod
    def ordered(choices):
        return " ".join(name for name in PROFILE_NAMES if name in choices) + "\n"

    def _set_profile(self, handler, name):
        """A handler's profile_set(): amd-pstate's per-CPU handler sets its
        CPU's EPP (255, the balanced EPP, 0) as the driver does, not through
        the EPP file (so not EBUSY under dynamic EPP)."""
        handler.profile = name
        if handler.cpu is not None and name in CPU_PROFILE_EPP:
            policy = self._cpu_policy(handler.cpu)
            if policy is not None:
                value = CPU_PROFILE_EPP[name]
                self._set_dynamic_epp(policy, self.balanced_epp() if value is None else value)

    def notify_legacy(self):
        """sysfs_notify(acpi_kobj, NULL, "platform_profile"), where the file is there."""
        if self.profiles:
            self.pending.append(LEGACY_PROFILE)

    def notify_class(self, handler):
        """_notify_class_profile(): sysfs_notify() on a class device's
        `profile` (its KOBJ_CHANGE uevent is not sent)."""
        if handler.device is not None:
            self.pending.append(f"{handler.device}/profile")

    def exists_legacy_profile(self):
        # Before 6.14 the files come and go with the one handler; since then
        # the group is visible while a class device is registered.
        return bool(self.profiles)

    exists_legacy_choices = exists_legacy_profile

    def show_legacy_profile(self):
        current = {handler.profile for handler in self.profiles}
        if not current:
            raise fail(errno.EINVAL)
        return (current.pop() if len(current) == 1 else "custom") + "\n"

    def store_legacy_profile(self, text):
        name = match_string(self.profile_names(), text)
        if name is None or (name == "custom" and self.profile_class):
            raise fail(errno.EINVAL)
        if name not in self.common_choices():
            raise fail(errno.EOPNOTSUPP)
        for handler in self.profiles:
            self._set_profile(handler, name)
            self.notify_class(handler)  # _store_and_notify()
        self.notify_legacy()

    def show_legacy_choices(self):
        choices = self.common_choices()
        if not choices and self.profile_class:
            raise fail(errno.EINVAL)
        return self.ordered(choices)

    def exists_class_profile(self, handler):
        return handler in self.profiles

    exists_class_choices = exists_class_name = exists_class_profile

    def show_class_profile(self, handler):
        return handler.profile + "\n"

    def store_class_profile(self, handler, text):
        name = match_string(self.profile_names(), text)
        if name is None:
            raise fail(errno.EINVAL)
        if name not in handler.choices:
            raise fail(errno.EOPNOTSUPP)  # hidden choices too: only the legacy file takes them
        self._set_profile(handler, name)
        # profile_store() notifies the legacy file only (the write itself is
        # the class file's IN_MODIFY).
        self.notify_legacy()

    def show_class_choices(self, handler):
        return self.ordered(handler.choices)

    def show_class_name(self, handler):
        return handler.driver + "\n"

    # thinkpad_acpi's lap sensor
    def exists_lapmode(self):
        return self.lapmode is not None

    def show_lapmode(self):
        return f"{self.lapmode}\n"

    # what the kernel adds and removes by itself
    def _is_dir(self, rel):
        if self.hidden(rel):
            return False
        if rel in self.virtual:
            return self.virtual[rel] is None
        return rel == "" or (os.path.isdir(rel) and not os.path.islink(rel))

    def _add(self, rel, target=None):
        """A directory (target None), link or attribute file (target "")
        the kernel creates, with the directories on the way where the tree
        lacks them."""
        parent, _, name = rel.rpartition("/")
        if not self._is_dir(parent):
            self._add(parent)
        # What the tree holds there was taken away before: what comes now
        # is new (a link may point elsewhere than the tree's did).
        replaced = rel in self.removed
        self.removed = {p for p in self.removed if not (p == rel or p.startswith(rel + "/"))}
        if target != "" and (replaced or not os.path.lexists(rel)):
            self.virtual[rel] = target
        self.extra_names.setdefault(parent, set()).add(name)

    def _remove(self, rel):
        """A file, link or directory the kernel takes away, with what is below it."""
        for path in [p for p in self.virtual if p == rel or p.startswith(rel + "/")]:
            del self.virtual[path]
        if os.path.lexists(rel):
            self.removed.add(rel)
        parent, _, name = rel.rpartition("/")
        self.extra_names.get(parent, set()).discard(name)

    # the test's side: firmware events and what the hardware holds
    def exists_control(self):
        return True

    exists_hardware = exists_control

    def show_control(self):
        return ""

    def store_control(self, text):
        line = text[:-1] if text.endswith("\n") else text
        words = line.split()
        if "\n" in line or not words:
            raise fail(errno.EINVAL)
        command = getattr(self, "command_" + words[0].replace("-", "_"), None)
        if command is None:
            raise fail(errno.EINVAL)
        try:
            command(*words[1:])
        except (TypeError, ValueError, LookupError):
            raise fail(errno.EINVAL)

    def command_fail_writes(self, rel, name, after="0"):
        code = getattr(errno, name)
        if not name.startswith("E") or int(after) < 0:
            raise ValueError(name)
        self.faults[rel] = [int(after), code]

    def command_slow_writes(self, rel, seconds):
        if float(seconds) < 0 or float(seconds) > 60:
            raise ValueError(seconds)
        self.slow[rel] = float(seconds)

    def command_clear_faults(self):
        self.faults.clear()
        self.slow.clear()

    def inject(self, rel):
        """The delay and the failure a test asked for on this write, if any."""
        if rel in self.slow:
            time.sleep(self.slow[rel])
        fault = self.faults.get(rel)
        if fault is None:
            return
        if fault[0] > 0:
            fault[0] -= 1
            return
        raise fail(fault[1])

    def command_resume(self):
        """After a resume firmware has reset the register of every CPU but
        the boot one; the driver's cache (what sysfs shows) has not changed."""
        for policy in self.policies.values():
            if 0 not in policy.cpus and self.active(policy) and self.epp_exposed(policy):
                policy.hardware_epp = EPP_AFTER_RESUME

    def command_firmware_epp(self, value, *numbers):
        table = self.epp_table()
        value = table[value] if value in table else int(value)
        if not 0 <= value <= 255:
            raise ValueError(value)
        if numbers:
            policies = [self.policies[int(n)] for n in numbers]
        else:
            policies = [p for p in self.policies.values() if self.active(p)]
        policies = [p for p in policies if self.epp_exposed(p)]
        if not policies:
            raise ValueError(numbers)
        for policy in policies:
            policy.epp = policy.hardware_epp = value

    def command_offline(self, cpu):
        self.set_online(int(cpu), False)

    def command_online(self, cpu):
        self.set_online(int(cpu), True)

    def command_mode(self, mode):
        if self.family == "intel":
            self.store_intel_status(mode)
        elif self.family == "amd":
            self.store_amd_status(mode)
        else:
            raise ValueError(mode)

    def _handlers(self, names):
        """The handlers named platform-profile-N or by their driver; all without names."""
        chosen = [h for h in self.profiles if not names or h.name in names or h.driver in names]
        if not chosen or any(not any(n in (h.name, h.driver) for h in chosen) for n in names):
            raise ValueError(names)
        return chosen

    def command_platform_profile(self, name, *handlers):
        """The driver's platform_profile_notify() (one handler each) or
        platform_profile_cycle() (all): notified even when the name is the
        one shown already."""
        chosen = self._handlers(handlers)
        if name not in self.profile_names() or any(name not in h.choices for h in chosen):
            raise ValueError(name)  # a hotkey picks only what the firmware offers
        for handler in chosen:
            self._set_profile(handler, name)
            self.notify_class(handler)
        self.notify_legacy()

    def command_lap_mode(self, value):
        """lapsensor_refresh(): notified only when the state changes."""
        if self.lapmode is None or value not in ("0", "1"):
            raise ValueError(value)
        if int(value) != self.lapmode:
            self.lapmode = int(value)
            self.pending.append(LAPMODE)

    def command_ac(self, value):
        """The charger is plugged (1) or unplugged (0): its `online` changes
        and, while dynamic EPP is on, amd-pstate's power supply notifier
        sets the balanced EPP again on every CPU whose per-CPU handler is at
        `balanced` (on any change event, the same state too)."""
        if self.mains is None or value not in ("0", "1"):
            raise ValueError(value)
        self.ac_online = int(value)
        if self.dynamic_active():
            for handler in self.profiles:
                if handler.cpu is not None and handler.profile == "balanced":
                    self._set_profile(handler, "balanced")

    def _choices(self, text, current):
        choices = text.split(",")
        if not all(c in self.profile_names() for c in choices) or current not in choices:
            raise ValueError(text)
        return choices

    def command_load_platform_profile(self, kind, *args):
        """platform_profile_register() of a driver that loads now."""
        known = self.version != (0, 0)
        if kind == "legacy":
            # Before 6.14: one handler at most (EEXIST), its files created
            # with it; nothing is notified.
            text, current = args
            choices = self._choices(text, current)
            if known and self.version >= CLASS_KERNEL:
                raise ValueError(kind)
            if self.profiles:
                raise fail(errno.EEXIST)
            self.profile_class = False
            self.profiles.append(ProfileHandler("legacy", choices, current, names=self.profile_names()))
            for rel in (LEGACY_PROFILE, LEGACY_CHOICES):
                self._add(rel, "")
        elif kind == "class":
            # 6.14+: device_register() (the directory, the class link, its
            # attributes, then its uevent), sysfs_notify() on the legacy file
            # if it is there, then sysfs_update_group() shows it.
            driver, text, current = args
            choices = self._choices(text, current)
            if known and self.version < CLASS_KERNEL:
                raise ValueError(kind)
            if self.profiles and not self.profile_class:
                raise fail(errno.EEXIST)  # a legacy-only kernel
            self._register_class_handler(driver, choices, current, PROFILE_PARENT.format(driver=driver))
        else:
            raise ValueError(kind)

    def _register_class_handler(self, driver, choices, current, parent, cpu=None):
        """platform_profile_register() with `parent` as the device (a path
        below sys/devices): device_register() (the directory, the class link,
        its attributes, then its uevent), sysfs_notify() on the legacy file
        if it is there, then sysfs_update_group() shows it."""
        used = {h.name for h in self.profiles}
        minor = next(n for n in itertools.count() if f"platform-profile-{n}" not in used)  # ida_alloc()
        name = f"platform-profile-{minor}"
        device = f"{parent}/platform-profile/{name}"
        handler = ProfileHandler(name, choices, current, driver, f"{PROFILE_CLASS}/{name}", device,
                                 self.profile_names(), self.hidden_choices(driver), cpu)
        self._add(handler.device)
        for attribute in ("name", "choices", "profile"):
            self._add(f"{handler.device}/{attribute}", "")
        self._add(handler.entry, "../../" + handler.device.removeprefix("sys/"))
        self.notify_legacy()
        self.profile_class = True
        self._add_handler(handler)
        for rel in (LEGACY_PROFILE, LEGACY_CHOICES):
            self._add(rel, "")
        return handler

    def command_unload_platform_profile(self, name):
        """platform_profile_remove(): the class device goes, the legacy file
        is notified while other handlers remain, and the legacy files go
        with the last handler."""
        handler = self._handlers((name,))
        if len(handler) != 1:
            raise ValueError(name)
        self._unregister_handler(handler[0])

    def _unregister_handler(self, handler):
        """platform_profile_remove()."""
        self.profiles.remove(handler)
        if handler.device is not None:
            for rel in [r for r, (h, _) in self.profile_files.items() if h is handler]:
                del self.profile_files[rel]
            self._remove(handler.entry)
            self._remove(handler.device)
            self.notify_legacy()

    def show_hardware(self):
        policies = {}
        if self.registered:
            for number, policy in sorted(self.policies.items()):
                policies[str(number)] = {"epp": policy.hardware_epp, "governor": policy.governor}
        hardware = {"policies": policies, "epb": {str(cpu): value for cpu, value in sorted(self.epb.items())}}
        if self.dynamic_epp is not None:
            hardware["dynamic_epp"] = self.dynamic_epp
        minor = lambda h: int(h.name.rpartition("-")[2]) if h.name[-1:].isdigit() else -1
        hardware["profiles"] = {h.name: h.profile for h in sorted(self.profiles, key=minor)}
        return json.dumps(hardware) + "\n"


class Notifier(threading.Thread):
    """kernfs_notify_workfn(): the IN_MODIFY of a file the kernel notified.
    Over FUSE inotify sees only what goes through the mount, so this thread
    writes one byte to each such file through MOUNTPOINT (an absolute path,
    taken before the emulator changed into BACKING, which may be the mount
    point itself). KernelFs recognises these writes by the thread's id (the
    pid FUSE reports is the writing thread's) and lets them change nothing.
    It runs after the store or command has returned, as the kernel's work
    item does, so that no FUSE request waits for another."""

    def __init__(self, mountpoint):
        super().__init__(name="kernfs-notify", daemon=True)
        self.mountpoint = mountpoint
        self.queue = queue.Queue()
        self.tid = None
        self.started_up = threading.Event()

    def start(self):
        super().start()
        self.started_up.wait()

    def post(self, paths):
        for rel in paths:
            self.queue.put(rel)

    def run(self):
        self.tid = threading.get_native_id()
        self.started_up.set()
        while True:
            rel = self.queue.get()
            try:
                fd = os.open(os.path.join(self.mountpoint, rel), os.O_WRONLY | os.O_CLOEXEC)
                try:
                    os.write(fd, b"\n")
                finally:
                    os.close(fd)
            except OSError:
                pass  # gone meanwhile, or the mount is going


class KernelFs(Operations):
    """The FUSE side: modelled paths go to the Kernel, the rest to BACKING
    (the working directory)."""

    def __init__(self, kernel, notifier):
        self.kernel = kernel
        self.notifier = notifier
        self.mutex = threading.Lock()
        self.handles = itertools.count(VIRTUAL_FH)
        # Open policy files and the driver registration they belong to.
        self.opened = {}

    @staticmethod
    def _rel(path):
        return path.strip("/")

    def _notifying(self):
        """Whether the request comes from the Notifier (its pid is the thread's)."""
        return fuse_get_context()[2] == self.notifier.tid

    def _node(self, rel):
        with self.mutex:
            node = self.kernel.node(rel)
        if node is None:
            raise fail(errno.ENOENT)
        return node

    def _backing_only(self, *paths):
        """Creating, removing and renaming are for the backing tree only."""
        for rel in paths:
            with self.mutex:
                modelled = (rel == CONTROL_DIR or rel.startswith(CONTROL_DIR + "/") or self.kernel.route(rel)
                            or rel in self.kernel.virtual)
                hidden = self.kernel.hidden(rel)
                # A directory only the kernel made (a late driver's) is not
                # in the tree: nothing can be created in it, as in sysfs.
                kernel_made = rel.rpartition("/")[0] in self.kernel.virtual
            if modelled:
                raise fail(errno.EPERM)
            if hidden:
                raise fail(errno.ENOENT)
            if kernel_made:
                raise fail(errno.EACCES)

    def _synthetic(self, mode, nlink):
        now = self.kernel.started
        return {"st_mode": mode, "st_nlink": nlink, "st_uid": 0, "st_gid": 0, "st_size": 0,
                "st_atime": now, "st_mtime": now, "st_ctime": now}

    def getattr(self, path, fh=None):
        rel = self._rel(path)
        kind, writable = self._node(rel)
        if kind == "dir":
            return self._synthetic(stat.S_IFDIR | 0o755, 2)
        if kind == "link":
            attrs = self._synthetic(stat.S_IFLNK | 0o777, 1)
            with self.mutex:
                attrs["st_size"] = len(self.kernel.virtual.get(rel) or "")
            return attrs
        if kind == "backing" or os.path.lexists(rel):
            st = os.lstat(rel or ".")
            attrs = {key: getattr(st, key) for key in STAT_KEYS}
        else:
            attrs = self._synthetic(0, 1)
        if kind == "attribute":
            attrs["st_mode"] = stat.S_IFREG | (0o644 if writable else 0o444)
            attrs["st_size"] = 4096
        return attrs

    def readdir(self, path, fh):
        rel = self._rel(path)
        self._node(rel)
        with self.mutex:
            return [".", ".."] + self.kernel.listdir(rel)

    def readlink(self, path):
        rel = self._rel(path)
        kind, _ = self._node(rel)
        if kind == "link":
            with self.mutex:
                target = self.kernel.virtual.get(rel)
            if target is None:
                raise fail(errno.ENOENT)
            return target
        return os.readlink(rel)

    def open(self, path, flags):
        rel = self._rel(path)
        kind, writable = self._node(rel)
        if kind == "dir":
            raise fail(errno.EISDIR)
        if kind == "attribute":
            if flags & os.O_ACCMODE != os.O_RDONLY and not writable and not self._notifying():
                raise fail(errno.EACCES)  # sysfs refuses to open a read-only attribute for writing
            fh = next(self.handles)
            if re.match(rf"{POLICY_DIR}/", rel):
                with self.mutex:
                    self.opened[fh] = self.kernel.generation
            return fh
        return os.open(rel, flags & ~os.O_CREAT)

    def create(self, path, mode, fi=None):
        rel = self._rel(path)
        self._backing_only(rel)
        return os.open(rel, os.O_RDWR | os.O_CREAT, mode)

    def release(self, path, fh):
        if fh < VIRTUAL_FH:
            os.close(fh)
        with self.mutex:
            self.opened.pop(fh, None)

    def _gone(self, rel, fh):
        """True for a file removed while open: gone from the tree, or a
        policy file of a driver registration that has ended (sysfs answers
        ENODEV through a descriptor of a removed file)."""
        if self.kernel.node(rel) is None:
            return True
        return fh in self.opened and self.opened[fh] != self.kernel.generation

    def _attribute(self, rel, fh):
        """The modelled attribute a read or write of `rel` through `fh`
        reaches, or None for a file of the backing tree; the errno of a file
        removed while open (ENODEV) or of an inactive policy (EBUSY).
        Called with the mutex held."""
        if self._gone(rel, fh):
            raise fail(errno.ENODEV)  # removed while open (a driver mode switch)
        attribute = self.kernel.route(rel)
        if self.kernel.busy(rel):
            raise fail(errno.EBUSY)
        return attribute

    def read(self, path, size, offset, fh):
        rel = self._rel(path)
        with self.mutex:
            attribute = self._attribute(rel, fh)
            if attribute:
                name, args, _ = attribute
                text = self.kernel.show(name, args).encode("latin-1")
                return text[offset:offset + size]
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        if fh >= VIRTUAL_FH and self._notifying():
            return len(data)  # a notification's write: the IN_MODIFY is all it is for
        rel = self._rel(path)
        with self.mutex:
            self.kernel.inject(rel)
            attribute = self._attribute(rel, fh)
            if attribute:
                name, args, _ = attribute
                self.kernel.pending.clear()
                try:
                    self.kernel.store(name, args, data.decode("latin-1"))
                    # The written file has its IN_MODIFY from this write already.
                    notified = [n for n in dict.fromkeys(self.kernel.pending) if n != rel]
                finally:
                    self.kernel.pending.clear()
        if not attribute:
            return os.pwrite(fh, data, offset)
        self.notifier.post(notified)
        return len(data)

    def truncate(self, path, length, fh=None):
        rel = self._rel(path)
        kind, _ = self._node(rel)
        with self.mutex:
            busy = self.kernel.busy(rel)
        if kind == "backing" and not busy:
            os.truncate(rel, length)
        return 0

    def fsync(self, path, datasync, fh):
        if fh < VIRTUAL_FH:
            os.fsync(fh)
        return 0

    def mkdir(self, path, mode):
        rel = self._rel(path)
        self._backing_only(rel)
        os.mkdir(rel, mode)

    def rmdir(self, path):
        rel = self._rel(path)
        self._backing_only(rel)
        os.rmdir(rel)

    def unlink(self, path):
        rel = self._rel(path)
        self._backing_only(rel)
        os.unlink(rel)

    def rename(self, old, new):
        old, new = self._rel(old), self._rel(new)
        self._backing_only(old, new)
        os.rename(old, new)

    def symlink(self, target, source):
        rel = self._rel(target)
        self._backing_only(rel)
        os.symlink(source, rel)

    def link(self, target, source):
        rel, existing = self._rel(target), self._rel(source)
        self._backing_only(rel, existing)
        os.link(existing, rel)

    def chmod(self, path, mode):
        rel = self._rel(path)
        if self._node(rel)[0] == "backing":
            os.chmod(rel or ".", mode)
        return 0

    def chown(self, path, uid, gid):
        rel = self._rel(path)
        if self._node(rel)[0] == "backing":
            os.chown(rel or ".", uid, gid, follow_symlinks=False)
        return 0

    def utimens(self, path, times=None):
        rel = self._rel(path)
        if self._node(rel)[0] == "backing":
            os.utime(rel or ".", times, follow_symlinks=False)
        return 0

    def statfs(self, path):
        st = os.statvfs(".")
        return {key: getattr(st, key) for key in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail",
                                                  "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}


def main():
    parser = argparse.ArgumentParser(usage="kernelfs.py [--config JSON] BACKING MOUNTPOINT",
                                     description="A sysfs that answers like the kernel (see the module's text).")
    parser.add_argument("--config", help='what kernelfs.json holds: {"epp_names": {"performance": 0, ...}}')
    parser.add_argument("backing")
    parser.add_argument("mountpoint")
    args = parser.parse_args()
    mountpoint = os.path.abspath(args.mountpoint)
    os.chdir(args.backing)
    kernel = Kernel(json.loads(args.config) if args.config else None)
    notifier = Notifier(mountpoint)
    notifier.start()
    # No caching in the kernel: files come and go with the driver's mode.
    # No entry is cached (files come and go with the driver's mode); the
    # attributes of a file that is there are kept a second (docs/testing.md).
    FUSE(KernelFs(kernel, notifier), mountpoint, foreground=True, nothreads=False, direct_io=True, allow_other=True,
         default_permissions=True, nonempty=True, entry_timeout=0, attr_timeout=1, negative_timeout=0)


if __name__ == "__main__":
    main()
