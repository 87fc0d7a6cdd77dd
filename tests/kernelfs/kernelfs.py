#!/usr/bin/python3
"""A sysfs that answers like the kernel, for Gearshift's tests.

Mounts BACKING (a copy of a fixture snapshot) at MOUNTPOINT with FUSE. Most
files pass through unchanged; the attributes the helper writes answer as the
kernel's store and show functions do (docs/testing.md, "The kernel-faithful
sysfs", lists what is modelled and what is not):

intel_pstate in active mode (HWP), per policy:
- energy_performance_preference takes a name from the kernel's table or a
  number 0..255 (surrounding white space ignored) and shows the name when the
  value equals a named one in that kernel's table, the number otherwise;
  `default` restores the value the policy booted with; anything else is
  EINVAL;
- under the performance governor any EPP but 0 (`performance`) is EBUSY;
  switching to performance saves the EPP and sets 0, leaving it restores the
  saved value;
- scaling_governor takes only what scaling_available_governors offers
  (EINVAL otherwise);
- a policy whose CPUs are all offline answers EBUSY to reads and writes of
  both.

amd-pstate-epp (active): the EPP takes names only (a number is EINVAL), and
under the performance governor anything but `performance` is EBUSY.

The kernel's name table comes from `kernelfs.json` in BACKING when present
({"epp_names": {"performance": 0, ...}}), else the generic one.

Usage: kernelfs.py BACKING MOUNTPOINT   (stays in the foreground; unmount
with `fusermount -u MOUNTPOINT` or `umount MOUNTPOINT`)
"""

import errno
import json
import os
import re
import stat
import sys
import threading

from fusepy import FUSE, FuseOSError, Operations

GENERIC = {"performance": 0, "balance_performance": 128, "balance_power": 192, "power": 255}
POLICY = re.compile(r"^/sys/devices/system/cpu/cpufreq/policy(\d+)/(energy_performance_preference|scaling_governor)$")


class Policy:
    """What the kernel keeps for one cpufreq policy."""

    def __init__(self, epp, governor):
        self.epp = epp
        self.boot_epp = epp
        self.saved_epp = None
        self.governor = governor


class KernelFs(Operations):
    def __init__(self, backing):
        self.backing = os.path.realpath(backing)
        self.mutex = threading.Lock()
        config = self._json("kernelfs.json")
        self.names = config.get("epp_names", GENERIC)
        self.policies = {}

    # -- the backing tree -------------------------------------------------
    def _path(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def _json(self, rel):
        try:
            with open(self._path(rel)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def _text(self, rel):
        try:
            with open(self._path(rel)) as f:
                return f.read().strip()
        except OSError:
            return None

    def _driver(self, n):
        return self._text(f"sys/devices/system/cpu/cpufreq/policy{n}/scaling_driver")

    def _policy(self, n):
        policy = self.policies.get(n)
        if policy is None:
            base = f"sys/devices/system/cpu/cpufreq/policy{n}"
            text = self._text(f"{base}/energy_performance_preference") or ""
            epp = self.names.get(text, int(text) if text.isdigit() else None)
            policy = Policy(epp, self._text(f"{base}/scaling_governor") or "")
            self.policies[n] = policy
        return policy

    def _active(self, n):
        """A policy is active while one of its CPUs is online."""
        related = self._text(f"sys/devices/system/cpu/cpufreq/policy{n}/related_cpus") or str(n)
        for cpu in related.split():
            online = self._text(f"sys/devices/system/cpu/cpu{cpu}/online")
            if online is None or online == "1":
                return True
        return False

    # -- show and store ---------------------------------------------------
    def _show(self, n, attr):
        if not self._active(n):
            raise FuseOSError(errno.EBUSY)
        policy = self._policy(n)
        if attr == "scaling_governor":
            return policy.governor + "\n"
        if policy.epp is None:
            return "\n"
        if self._driver(n) == "amd-pstate-epp":
            name = next((k for k, v in self.names.items() if v == policy.epp), str(policy.epp))
            return name + "\n"
        for name, value in self.names.items():
            if value == policy.epp:
                return name + "\n"
        return f"{policy.epp}\n"

    def _store(self, n, attr, data):
        if not self._active(n):
            raise FuseOSError(errno.EBUSY)
        try:
            text = data.decode("ascii").strip()
        except UnicodeDecodeError:
            raise FuseOSError(errno.EINVAL)
        policy = self._policy(n)
        amd = self._driver(n) == "amd-pstate-epp"
        if attr == "scaling_governor":
            offered = (self._text(f"sys/devices/system/cpu/cpufreq/policy{n}/scaling_available_governors") or "").split()
            if text not in offered:
                raise FuseOSError(errno.EINVAL)
            if text == "performance" and policy.governor != "performance":
                policy.saved_epp = policy.epp
                policy.epp = 0
            elif text != "performance" and policy.governor == "performance" and policy.saved_epp is not None:
                policy.epp = policy.saved_epp
                policy.saved_epp = None
            policy.governor = text
            return
        if text == "default":
            value = policy.boot_epp
        elif text in self.names:
            value = self.names[text]
        elif re.fullmatch(r"\d{1,3}", text) and int(text) <= 255 and not amd:
            value = int(text)
        else:
            raise FuseOSError(errno.EINVAL)
        if policy.governor == "performance" and value != 0:
            raise FuseOSError(errno.EBUSY)
        policy.epp = value

    # -- FUSE -------------------------------------------------------------
    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        attrs = {key: getattr(st, key) for key in
                 ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")}
        if POLICY.match(path):
            attrs["st_size"] = 4096
        return attrs

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def readlink(self, path):
        return os.readlink(self._path(path))

    def open(self, path, flags):
        return os.open(self._path(path), flags & ~os.O_CREAT)

    def release(self, path, fh):
        os.close(fh)

    def read(self, path, size, offset, fh):
        match = POLICY.match(path)
        if match:
            with self.mutex:
                text = self._show(int(match.group(1)), match.group(2)).encode()
            return text[offset:offset + size]
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        match = POLICY.match(path)
        if match:
            with self.mutex:
                self._store(int(match.group(1)), match.group(2), data)
            return len(data)
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        if POLICY.match(path):
            return 0
        with open(self._path(path), "r+") as f:
            f.truncate(length)
        return 0


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    FUSE(KernelFs(sys.argv[1]), sys.argv[2], foreground=True, nothreads=False, direct_io=True,
         allow_other=True, default_permissions=True, nonempty=True)


if __name__ == "__main__":
    main()
