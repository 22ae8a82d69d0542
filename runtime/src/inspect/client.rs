//! One connected tool: its non-blocking socket, the line it is sending, and the bounded queue of
//! what goes to it.

use super::InspectorOptions;
use super::protocol::{GameMessage, MAX_LINE, encode};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// What a tool sent this frame.
pub(super) enum Received {
    /// A whole line (without its newline).
    Line(Vec<u8>),
    /// Something that is no line: answered with an `error`, and the reading goes on.
    Error(String),
}

pub(super) struct Client {
    /// Unique among the tools an inspector has accepted.
    id: u64,
    stream: TcpStream,
    /// The line being received (never more than [`MAX_LINE`] bytes).
    line: Vec<u8>,
    /// The line being received is too long: its bytes are skipped up to its newline.
    skipping: bool,
    /// Bytes waiting to go out; `sent` of them went already.
    queue: Vec<u8>,
    sent: usize,
    max_queued: usize,
    connected: Instant,
    /// When a line last came from it.
    last_heard: Instant,
    /// Where it connected from (failed hellos are backed off per address).
    peer: SocketAddr,
    said_hello: bool,
    wants_trace: bool,
    open: bool,
}

impl Client {
    pub(super) fn new(
        stream: TcpStream,
        peer: SocketAddr,
        id: u64,
        options: &InspectorOptions,
    ) -> io::Result<Client> {
        stream.set_nonblocking(true)?;
        // Small messages (`paused`, replies) go out at once rather than waiting for more.
        let _ = stream.set_nodelay(true);
        Ok(Client {
            id,
            stream,
            line: Vec::new(),
            skipping: false,
            queue: Vec::new(),
            sent: 0,
            max_queued: options.max_queued,
            connected: Instant::now(),
            last_heard: Instant::now(),
            peer,
            said_hello: false,
            wants_trace: false,
            open: true,
        })
    }

    pub(super) fn id(&self) -> u64 {
        self.id
    }

    pub(super) fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// How long since it sent a line.
    pub(super) fn silent_for(&self) -> Duration {
        self.last_heard.elapsed()
    }

    pub(super) fn said_hello(&self) -> bool {
        self.said_hello
    }

    pub(super) fn wants_trace(&self) -> bool {
        self.open && self.said_hello && self.wants_trace
    }

    pub(super) fn hello(&mut self, trace: bool) {
        self.said_hello = true;
        self.wants_trace = trace;
    }

    /// Closes it once what is queued has been tried (an `error` saying why).
    pub(super) fn close(&mut self) {
        self.flush();
        self.open = false;
    }

    /// Whether to keep it: open, and past its hello or still within the time for it.
    pub(super) fn is_open(&self, hello_timeout: Duration) -> bool {
        self.open && (self.said_hello || self.connected.elapsed() < hello_timeout)
    }

    /// Whether the connection is still open (not closed, dropped, or gone).
    pub(super) fn open(&self) -> bool {
        self.open
    }

    /// Bytes queued for it and not yet written.
    pub(super) fn backlog(&self) -> usize {
        self.queue.len() - self.sent
    }

    /// Queues a message. One that alone is longer than the queue may hold is not queued: the
    /// tool gets an `error` naming the limit instead.
    pub(super) fn send(&mut self, text: &str) {
        self.queue_text(text, false);
    }

    /// Queues a frame's trace events.
    pub(super) fn send_trace(&mut self, lines: &str) {
        self.queue_text(lines, true);
    }

    /// A tool whose backlog with `text` would pass the limit has stopped reading (or cannot
    /// keep up with the trace) and is dropped, its queue freed at once: the game never holds
    /// more than the limit for one tool.
    fn queue_text(&mut self, text: &str, trace: bool) {
        if !self.open {
            return;
        }
        let mut text = std::borrow::Cow::Borrowed(text);
        if text.len() > self.max_queued && !trace {
            let kind = message_kind(&text);
            text = std::borrow::Cow::Owned(encode(&GameMessage::Error {
                message: format!(
                    "{kind}: the answer is {} bytes, more than the {} bytes a tool's queue holds \
                     (InspectorOptions::max_queued); not sent",
                    text.len(),
                    self.max_queued
                ),
            }));
        }
        if self.backlog() + text.len() > self.max_queued {
            self.open = false;
            self.queue = Vec::new();
            self.sent = 0;
            return;
        }
        self.queue.extend_from_slice(text.as_bytes());
    }

    /// Writes as much of the queue as the socket takes now.
    pub(super) fn flush(&mut self) {
        while self.open && self.sent < self.queue.len() {
            match self.stream.write(&self.queue[self.sent..]) {
                Ok(0) => self.open = false,
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.open = false,
            }
        }
        if self.sent == self.queue.len() {
            self.queue.clear();
            self.sent = 0;
        } else if self.sent > self.queue.len() / 2 {
            // Keep the queue from creeping: what went out is dropped from the front.
            self.queue.drain(..self.sent);
            self.sent = 0;
        }
    }

    /// Reads what arrived (at most `read_per_frame` bytes) and splits it into lines.
    pub(super) fn receive(&mut self, options: &InspectorOptions) -> Vec<Received> {
        let mut received = Vec::new();
        let mut budget = options.read_per_frame;
        let mut chunk = [0u8; 16 * 1024];
        while self.open && budget > 0 {
            let want = chunk.len().min(budget);
            match self.stream.read(&mut chunk[..want]) {
                Ok(0) => self.open = false, // the tool closed the connection
                Ok(n) => {
                    budget -= n;
                    self.split(&chunk[..n], &mut received);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.open = false,
            }
        }
        received
    }

    fn split(&mut self, mut bytes: &[u8], received: &mut Vec<Received>) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            let (head, rest) = (&bytes[..end], &bytes[end + 1..]);
            bytes = rest;
            if self.skipping {
                self.skipping = false;
                continue;
            }
            if self.line.len() + head.len() > MAX_LINE {
                self.line = Vec::new();
                received.push(Received::Error(too_long()));
                continue;
            }
            self.line.extend_from_slice(head);
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                self.last_heard = Instant::now();
                received.push(Received::Line(line));
            }
        }
        if self.skipping {
            return;
        }
        if self.line.len() + bytes.len() > MAX_LINE {
            // Said at once, not when the newline finally comes: the tool learns early, and
            // the game never holds more than one line's worth.
            self.line = Vec::new();
            self.skipping = true;
            received.push(Received::Error(too_long()));
        } else {
            self.line.extend_from_slice(bytes);
        }
    }
}

fn too_long() -> String {
    format!("line longer than {MAX_LINE} bytes: skipped up to its newline")
}

/// The `type` of the message `text` begins with (`snapshot`).
fn message_kind(text: &str) -> &str {
    text.strip_prefix("{\"type\":\"")
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("message")
}
