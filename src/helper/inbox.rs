//! The helper's end of the system bus socket, with a guard in front of zbus.
//!
//! zbus reads every message whole and answers a call it cannot place by
//! repeating parts of it: "Unknown object '<path>'" repeats an object path
//! of any length. An error reply a few bytes larger than a call of nearly
//! the bus daemon's 32 MiB limit is over that limit, and the bus daemon
//! then drops the helper's connection: one call from any local user would
//! stop the helper. Every call the helper serves is small (the largest, a
//! custom profile, is a few KiB), so calls are refused here, before zbus
//! parses them:
//! - a call over [`MAX_CALL_BYTES`] bytes;
//! - a call to an object path over [`MAX_PATH_BYTES`] bytes (the helper's
//!   longest is 38).
//!
//! The refusal is a short error reply that repeats nothing of the call,
//! sent by a task of the helper's own (the reader cannot write). Refusals
//! wait in a queue of [`REFUSALS_QUEUED`]; past that they are dropped
//! unanswered, so that a flood of them costs a bounded amount of memory.
//! Signals and replies pass untouched: zbus drops the signals nobody
//! subscribed to, and the helper checks the ones it acts on.
//!
//! A call over the limit is never read whole: its first 16 bytes are
//! looked at where they wait in the socket (`MSG_PEEK`), its header read,
//! and the rest read into a small buffer and forgotten. The helper then
//! empties its queue in the bus daemon as fast as the daemon fills it, and
//! the daemon does not turn others' calls away as sent to a full queue (a
//! flood of 1 MB calls did that before, for seconds). A call whose header
//! alone is over the limit (an object path of megabytes) is dropped
//! unanswered.

use std::io;
use std::os::fd::OwnedFd;

use tokio::net::unix::OwnedReadHalf;
use tokio::sync::mpsc;
use zbus::conn::socket::{ReadHalf, Socket, Split};
use zbus::message::{Flags, Type};
use zbus::{Connection, Message};

/// The largest call the helper reads: 64 KiB, many times its largest (a
/// custom profile's dictionary, a CPU list of 8,192 CPUs at 32 KiB).
pub const MAX_CALL_BYTES: usize = 64 * 1024;
/// The longest object path a call may name: the D-Bus limit of member and
/// interface names, far above the helper's own paths.
pub const MAX_PATH_BYTES: usize = 255;
/// Refusals waiting to be sent.
const REFUSALS_QUEUED: usize = 16;

/// Where the system bus listens unless `DBUS_SYSTEM_BUS_ADDRESS` says.
const DEFAULT_ADDRESS: &str = "unix:path=/var/run/dbus/system_bus_socket";

/// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, as libdbus reads
/// it) through the guard.
///
/// # Errors
/// No address in it names a Unix socket that answers, or the bus refuses
/// the connection.
pub async fn connect_system_bus() -> anyhow::Result<Connection> {
    let address = std::env::var("DBUS_SYSTEM_BUS_ADDRESS").unwrap_or_else(|_| DEFAULT_ADDRESS.to_owned());
    let stream = connect(&address)?;
    let (refusals, mut to_send) = mpsc::channel::<Message>(REFUSALS_QUEUED);
    let connection = zbus::connection::Builder::socket(Guarded { stream, refusals }).build().await?;
    let sender = connection.clone();
    tokio::spawn(async move {
        while let Some(reply) = to_send.recv().await {
            if let Err(err) = sender.send(&reply).await {
                log::debug!("cannot send a refusal: {err}");
            }
        }
    });
    Ok(connection)
}

/// The first entry of a D-Bus address list that names a Unix socket
/// (`unix:path=` or `unix:abstract=`) and accepts a connection.
fn connect(address: &str) -> anyhow::Result<tokio::net::UnixStream> {
    let mut tried = Vec::new();
    for entry in address.split(';').filter(|e| !e.is_empty()) {
        let Some(target) = unix_target(entry) else {
            tried.push(format!("{entry}: not a Unix socket address"));
            continue;
        };
        match target.connect() {
            Ok(stream) => {
                stream.set_nonblocking(true)?;
                return Ok(tokio::net::UnixStream::from_std(stream)?);
            }
            Err(err) => tried.push(format!("{entry}: {err}")),
        }
    }
    anyhow::bail!("no address of the system bus answers ({})", tried.join("; "))
}

/// A Unix socket named by an address entry.
#[derive(Debug, PartialEq, Eq)]
enum UnixTarget {
    Path(Vec<u8>),
    Abstract(Vec<u8>),
}

impl UnixTarget {
    fn connect(&self) -> io::Result<std::os::unix::net::UnixStream> {
        use std::os::unix::ffi::OsStrExt;
        match self {
            UnixTarget::Path(path) => std::os::unix::net::UnixStream::connect(std::ffi::OsStr::from_bytes(path)),
            UnixTarget::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
                std::os::unix::net::UnixStream::connect_addr(&addr)
            }
        }
    }
}

/// `unix:path=/run/dbus/system_bus_socket` (values %-escaped, as the D-Bus
/// specification writes them).
fn unix_target(entry: &str) -> Option<UnixTarget> {
    let keys = entry.strip_prefix("unix:")?;
    keys.split(',').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        let value = unescape(value)?;
        match key {
            "path" => Some(UnixTarget::Path(value)),
            "abstract" => Some(UnixTarget::Abstract(value)),
            _ => None,
        }
    })
}

fn unescape(value: &str) -> Option<Vec<u8>> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The socket, with the refusals' queue.
#[derive(Debug)]
struct Guarded {
    stream: tokio::net::UnixStream,
    refusals: mpsc::Sender<Message>,
}

impl Socket for Guarded {
    type ReadHalf = GuardedRead;
    type WriteHalf = tokio::net::unix::OwnedWriteHalf;

    fn split(self) -> Split<GuardedRead, Self::WriteHalf> {
        let (read, write) = self.stream.into_split();
        Split::new(GuardedRead { inner: read, refusals: self.refusals }, write)
    }
}

/// The read half: zbus's own reading, then the check of each call.
#[derive(Debug)]
struct GuardedRead {
    inner: OwnedReadHalf,
    refusals: mpsc::Sender<Message>,
}

#[zbus::export::async_trait::async_trait]
impl ReadHalf for GuardedRead {
    async fn receive_message(
        &mut self,
        seq: u64,
        already_received_bytes: &mut Vec<u8>,
        already_received_fds: &mut Vec<OwnedFd>,
    ) -> zbus::Result<Message> {
        loop {
            if already_received_bytes.is_empty() {
                if let Some(head) = self.peek_head().await? {
                    if head.kind == Type::MethodCall as u8 && head.total() > MAX_CALL_BYTES {
                        if let Some(reply) = self.skip(&head).await? {
                            let _ = self.refusals.try_send(reply);
                        }
                        continue;
                    }
                }
            }
            let message = self.inner.receive_message(seq, already_received_bytes, already_received_fds).await?;
            match check(&message) {
                Verdict::Pass => return Ok(message),
                Verdict::Drop => {}
                Verdict::Refuse(reply) => {
                    // A full queue drops the refusal: its caller waits in vain.
                    let _ = self.refusals.try_send(reply);
                }
            }
        }
    }

    async fn recvmsg(&mut self, buf: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
        self.inner.recvmsg(buf).await
    }

    fn can_pass_unix_fd(&self) -> bool {
        self.inner.can_pass_unix_fd()
    }

    async fn peer_credentials(&mut self) -> io::Result<zbus::fdo::ConnectionCredentials> {
        self.inner.peer_credentials().await
    }

    fn auth_mechanism(&self) -> zbus::conn::AuthMechanism {
        self.inner.auth_mechanism()
    }
}

/// The fixed start of a message (the D-Bus specification's "Message
/// Format"): endianness, type, flags, version, body length, serial, and the
/// length of the header fields' array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    little: bool,
    kind: u8,
    flags: u8,
    body_len: u32,
    serial: u32,
    fields_len: u32,
}

impl Head {
    fn parse(bytes: &[u8; 16]) -> Option<Head> {
        let little = match bytes[0] {
            b'l' => true,
            b'B' => false,
            _ => return None,
        };
        let word = |at: usize| {
            let raw = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
            if little {
                u32::from_le_bytes(raw)
            } else {
                u32::from_be_bytes(raw)
            }
        };
        Some(Head { little, kind: bytes[1], flags: bytes[2], body_len: word(4), serial: word(8), fields_len: word(12) })
    }

    /// The header's length, padded to 8 as the body starts.
    fn header_len(&self) -> usize {
        (16 + self.fields_len as usize).next_multiple_of(8)
    }

    fn total(&self) -> usize {
        self.header_len() + self.body_len as usize
    }
}

/// What a refusal needs of a call's header fields.
#[derive(Debug, Default, PartialEq, Eq)]
struct Fields {
    sender: Option<String>,
    interface: Option<String>,
}

/// The sender and interface among a header's fields (`a(yv)`), as far as
/// they can be read; `fields` starts 16 bytes into the message, which the
/// alignment counts from.
fn parse_fields(fields: &[u8], little: bool) -> Fields {
    let mut found = Fields::default();
    let word = |at: usize| -> Option<u32> {
        let raw: [u8; 4] = fields.get(at..at + 4)?.try_into().ok()?;
        Some(if little { u32::from_le_bytes(raw) } else { u32::from_be_bytes(raw) })
    };
    // Offsets in the message: the fields begin at 16.
    let align = |at: usize, to: usize| (at + 16).next_multiple_of(to) - 16;
    let mut at = 0;
    while at < fields.len() {
        at = align(at, 8);
        let (Some(&code), Some(&sig_len)) = (fields.get(at), fields.get(at + 1)) else { break };
        let Some(sig) = fields.get(at + 2..at + 2 + usize::from(sig_len)) else { break };
        at += 3 + usize::from(sig_len);
        match sig {
            b"s" | b"o" => {
                at = align(at, 4);
                let Some(len) = word(at) else { break };
                let Some(text) = fields.get(at + 4..at + 4 + len as usize) else { break };
                let text = std::str::from_utf8(text).ok().map(str::to_owned);
                match code {
                    2 => found.interface = text,
                    7 => found.sender = text,
                    _ => {}
                }
                at += 4 + len as usize + 1;
            }
            b"g" => {
                let Some(&len) = fields.get(at) else { break };
                at += 1 + usize::from(len) + 1;
            }
            b"u" | b"h" => at = align(at, 4) + 4,
            _ => break,
        }
    }
    found
}

/// The short error reply to a call of `head` (with `fields`) read no
/// further than its header: the call's size, and nothing of what it holds.
fn refusal_for(head: &Head, fields: &Fields) -> Option<Message> {
    if head.flags & (Flags::NoReplyExpected as u8) != 0 {
        return None;
    }
    let serial = std::num::NonZeroU32::new(head.serial)?;
    let sender = fields.sender.as_deref()?;
    // A stand-in for the call with what a reply takes from it: its
    // serial and its sender.
    let call = Message::method_call("/", "Refused").ok()?.sender(sender).ok()?.serial(serial).build(&()).ok()?;
    let name = if fields.interface.as_deref() == Some(crate::dbus::HELPER_INTERFACE) {
        "io.github.gearshift.Error.InvalidArgument"
    } else {
        "org.freedesktop.DBus.Error.InvalidArgs"
    };
    let text = format!("the call is {} bytes; a call to the helper is at most {MAX_CALL_BYTES} bytes", head.total());
    Message::error(&call.header(), name).ok()?.build(&(text,)).ok()
}

impl GuardedRead {
    /// The next message's first 16 bytes, looked at without taking them
    /// from the socket; `None` when fewer are there yet (the message is
    /// then read as any other).
    async fn peek_head(&mut self) -> io::Result<Option<Head>> {
        use std::os::fd::AsRawFd;
        let stream = self.inner.as_ref();
        let mut bytes = [0u8; 16];
        loop {
            stream.readable().await?;
            let peeked = stream.try_io(tokio::io::Interest::READABLE, || {
                // SAFETY: recv into the 16 bytes we own, on the socket's
                // descriptor, leaving the bytes in the socket (MSG_PEEK).
                let n = unsafe {
                    libc::recv(
                        stream.as_raw_fd(),
                        bytes.as_mut_ptr().cast(),
                        bytes.len(),
                        libc::MSG_PEEK | libc::MSG_DONTWAIT,
                    )
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match peeked {
                Ok(16) => return Ok(Head::parse(&bytes)),
                Ok(_) => return Ok(None),
                Err(err) if matches!(err.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {}
                Err(err) => return Err(err),
            }
        }
    }

    /// Reads exactly `buf.len()` bytes (closing any descriptor sent along).
    async fn read_exactly(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let mut at = 0;
        while at < buf.len() {
            let (read, _fds) = self.inner.recvmsg(&mut buf[at..]).await?;
            if read == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the bus closed the connection"));
            }
            at += read;
        }
        Ok(())
    }

    /// Takes a call over the limit out of the socket: its header read (if
    /// that is under the limit), the rest read into a small buffer and
    /// dropped. Answers the refusal to send, if the call can have one.
    async fn skip(&mut self, head: &Head) -> io::Result<Option<Message>> {
        let mut chunk = vec![0u8; 64 * 1024];
        let mut left = head.total();
        let mut refusal = None;
        if head.header_len() <= MAX_CALL_BYTES {
            let mut header = vec![0u8; head.header_len()];
            self.read_exactly(&mut header).await?;
            left -= header.len();
            let fields = parse_fields(&header[16..16 + head.fields_len as usize], head.little);
            refusal = refusal_for(head, &fields);
        }
        while left > 0 {
            let take = left.min(chunk.len());
            self.read_exactly(&mut chunk[..take]).await?;
            left -= take;
        }
        log::debug!("refused a call of {} bytes without reading it", head.total());
        Ok(refusal)
    }
}

/// What becomes of a message read.
enum Verdict {
    Pass,
    /// Refused, and its caller asked for no reply.
    Drop,
    /// Refused with this reply.
    Refuse(Message),
}

fn check(message: &Message) -> Verdict {
    if message.message_type() != Type::MethodCall {
        return Verdict::Pass;
    }
    let header = message.header();
    let size = message.data().len();
    let path = header.path().map_or(0, |p| p.len());
    let (name, text) = if size > MAX_CALL_BYTES {
        let name = if header.interface().is_some_and(|i| i.as_str() == crate::dbus::HELPER_INTERFACE) {
            "io.github.gearshift.Error.InvalidArgument"
        } else {
            "org.freedesktop.DBus.Error.InvalidArgs"
        };
        (name, format!("the call is {size} bytes; a call to the helper is at most {MAX_CALL_BYTES} bytes"))
    } else if path > MAX_PATH_BYTES {
        ("org.freedesktop.DBus.Error.UnknownObject", format!("no object has a path of {path} bytes"))
    } else {
        return Verdict::Pass;
    };
    log::debug!("refused a call before reading it: {text}");
    if message.primary_header().flags().contains(Flags::NoReplyExpected) {
        return Verdict::Drop;
    }
    match Message::error(&header, name).and_then(|b| b.build(&(text,))) {
        Ok(reply) => Verdict::Refuse(reply),
        Err(_) => Verdict::Drop,
    }
}

#[cfg(test)]
mod tests;
