use super::*;

#[test]
fn addresses_name_paths_and_abstract_sockets_with_escapes() {
    assert_eq!(
        unix_target("unix:path=/run/dbus/system_bus_socket"),
        Some(UnixTarget::Path(b"/run/dbus/system_bus_socket".to_vec()))
    );
    assert_eq!(unix_target("unix:guid=1234,path=/tmp/a%20b"), Some(UnixTarget::Path(b"/tmp/a b".to_vec())));
    assert_eq!(
        unix_target("unix:abstract=/tmp/dbus-XYZ,guid=1"),
        Some(UnixTarget::Abstract(b"/tmp/dbus-XYZ".to_vec()))
    );
    assert_eq!(unix_target("tcp:host=localhost,port=1"), None);
    assert_eq!(unix_target("unix:path=/tmp/%zz"), None);
    assert_eq!(unix_target("unix:path=/tmp/%2"), None);
}

#[test]
fn no_address_that_answers_is_an_error_naming_each() {
    let err = connect("tcp:host=x;unix:path=/nonexistent/socket").unwrap_err().to_string();
    assert!(err.contains("tcp:host=x: not a Unix socket address"), "{err}");
    assert!(err.contains("/nonexistent/socket: No such file"), "{err}");
}

fn call(path: &str, body: &str) -> Message {
    Message::method_call(path, "SetProfile")
        .unwrap()
        .interface(crate::dbus::HELPER_INTERFACE)
        .unwrap()
        .sender(":1.42")
        .unwrap()
        .build(&(body,))
        .unwrap()
}

fn refusal(message: &Message) -> (String, String) {
    let Verdict::Refuse(reply) = check(message) else { panic!("not refused") };
    let header = reply.header();
    let text: String = reply.body().deserialize().unwrap();
    assert!(reply.data().len() < 1024, "the refusal is {} bytes", reply.data().len());
    (header.error_name().unwrap().to_string(), text)
}

#[test]
fn small_calls_pass_and_large_ones_are_refused_without_repeating_them() {
    assert!(matches!(check(&call("/io/github/gearshift/Helper1", "balanced")), Verdict::Pass));
    let big = "\u{1}".repeat(MAX_CALL_BYTES);
    let (name, text) = refusal(&call("/io/github/gearshift/Helper1", &big));
    assert_eq!(name, "io.github.gearshift.Error.InvalidArgument");
    assert!(text.contains("at most 65536 bytes"), "{text}");
    let long_path = format!("/{}", "A".repeat(MAX_PATH_BYTES));
    let (name, text) = refusal(&call(&long_path, "x"));
    assert_eq!(name, "org.freedesktop.DBus.Error.UnknownObject");
    assert_eq!(text, "no object has a path of 256 bytes");
}

#[test]
fn a_header_read_alone_gives_the_refusal_its_sender_and_serial() {
    let message = call("/io/github/gearshift/Helper1", &"x".repeat(100));
    let bytes: &[u8] = message.data();
    let head = Head::parse(bytes[..16].try_into().unwrap()).unwrap();
    assert_eq!(head.total(), bytes.len());
    assert_eq!(head.kind, Type::MethodCall as u8);
    let fields = parse_fields(&bytes[16..16 + head.fields_len as usize], head.little);
    assert_eq!(fields.sender.as_deref(), Some(":1.42"));
    assert_eq!(fields.interface.as_deref(), Some(crate::dbus::HELPER_INTERFACE));
    let reply = refusal_for(&head, &fields).unwrap();
    let header = reply.header();
    assert_eq!(header.reply_serial(), Some(message.primary_header().serial_num()));
    assert_eq!(header.destination().map(|d| d.to_string()).as_deref(), Some(":1.42"));
    assert_eq!(header.error_name().unwrap().as_str(), "io.github.gearshift.Error.InvalidArgument");
    // Garbage parses to nothing rather than past its end.
    assert_eq!(parse_fields(&[7, 200, 1, 2], true), Fields::default());
    assert_eq!(Head::parse(&[b'x'; 16]), None);
}

#[test]
fn a_refused_call_that_wants_no_reply_is_dropped() {
    let message = Message::method_call("/io/github/gearshift/Helper1", "SetProfile")
        .unwrap()
        .interface(crate::dbus::HELPER_INTERFACE)
        .unwrap()
        .with_flags(Flags::NoReplyExpected)
        .unwrap()
        .build(&("x".repeat(MAX_CALL_BYTES),))
        .unwrap();
    assert!(matches!(check(&message), Verdict::Drop));
}
