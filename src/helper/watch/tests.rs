use super::*;

/// Messages as the kernel sends them on NETLINK_KOBJECT_UEVENT.
#[test]
fn only_the_kernel_sends_uevents() {
    // SAFETY: an all-zero sockaddr_nl is a valid value.
    let mut from: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    from.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    let len = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
    assert!(from_the_kernel(&from, len));
    from.nl_pid = 4242;
    assert!(!from_the_kernel(&from, len), "a user-space sender");
    from.nl_pid = 0;
    assert!(!from_the_kernel(&from, 0), "no address");
    from.nl_family = libc::AF_UNIX as libc::sa_family_t;
    assert!(!from_the_kernel(&from, len), "not netlink");
}

#[test]
fn recorded_uevents() {
    let online = b"online@/devices/system/cpu/cpu3\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0SEQNUM=4371\0";
    assert_eq!(parse_uevent(online), Some(CpuEvent::Online(3)));
    let offline = b"offline@/devices/system/cpu/cpu12\0ACTION=offline\0DEVPATH=/devices/system/cpu/cpu12\0SUBSYSTEM=cpu\0SEQNUM=4370\0";
    assert_eq!(parse_uevent(offline), Some(CpuEvent::Offline(12)));
    let add =
        b"add@/devices/system/cpu/cpu255\0ACTION=add\0DEVPATH=/devices/system/cpu/cpu255\0SUBSYSTEM=cpu\0SEQNUM=9\0";
    assert_eq!(parse_uevent(add), Some(CpuEvent::Online(255)));
    // Not a CPU, not a CPU coming or going, or not the kernel's.
    let usb = b"add@/devices/pci0000:00/usb1/1-1\0ACTION=add\0DEVPATH=/devices/pci0000:00/usb1/1-1\0SUBSYSTEM=usb\0SEQNUM=5\0";
    assert_eq!(parse_uevent(usb), None);
    let change = b"change@/devices/system/cpu/cpu3\0ACTION=change\0DEVPATH=/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0";
    assert_eq!(parse_uevent(change), None);
    let cpufreq = b"add@/devices/system/cpu/cpufreq/policy3\0ACTION=add\0DEVPATH=/devices/system/cpu/cpufreq/policy3\0SUBSYSTEM=cpu\0";
    assert_eq!(parse_uevent(cpufreq), None);
    let udev = b"libudev\0\xfe\xed\xca\xfe(\0\0\0(\0\0\0";
    assert_eq!(parse_uevent(udev), None);
    let class = b"add@/devices/platform/asus-nb-wmi/platform-profile/platform-profile-0\0ACTION=add\0DEVPATH=/devices/platform/asus-nb-wmi/platform-profile/platform-profile-0\0SUBSYSTEM=platform-profile\0SEQNUM=7\0";
    assert_eq!(parse_uevent(class), Some(CpuEvent::Firmware));
    let module = b"add@/module/thinkpad_acpi\0ACTION=add\0DEVPATH=/module/thinkpad_acpi\0SUBSYSTEM=module\0SEQNUM=8\0";
    assert_eq!(parse_uevent(module), Some(CpuEvent::Firmware));
    let unload = b"remove@/module/thinkpad_acpi\0ACTION=remove\0DEVPATH=/module/thinkpad_acpi\0SUBSYSTEM=module\0";
    assert_eq!(parse_uevent(unload), None);
    assert_eq!(parse_uevent(b""), None);
    assert_eq!(parse_uevent(b"\xff\xfe"), None);
}
