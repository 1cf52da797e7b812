//! The native worker: the child that loads a submission's shared library and answers protocol
//! v1 (`specs/protocol.md`) on its standard input and output by calling the C ABI of
//! `specs/abi/broadside.h`.
//!
//! It runs as `broadside __native-worker LIBRARY`, started by the parent's [`Process`] target,
//! so every crash, endless loop or overrun in the library ends here, never in the grader. The
//! library never sees the protocol streams: its standard input reads as empty and its standard
//! output goes to standard error (whose tail a crash report shows).
//!
//! Every buffer handed to the library is followed by guard bytes that are checked after the
//! call (an `overrun` fault), and every borrowed argument is scribbled over once the call
//! returns, so a library that keeps a borrowed pointer shows wrong answers instead of passing
//! by luck.
//!
//! [`Process`]: crate::target::Process

use super::abi::{self, BsCell, BsShip, Functions, Game};
use crate::engine::{Axis, Dir, Outcome, QueryValue};
use crate::protocol::{
    CellValue, ErrorKind, Failure, Field, GameRules, GameSetup, OPS, Pair, Request, Response, State,
};
use crate::spec::StateKey;
use std::ffi::c_char;
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The protocol driver name the worker announces in `hello`.
const DRIVER: &str = "broadside-native/1";
/// Guard bytes after each output buffer, and their value.
const GUARD: usize = 64;
const GUARD_BYTE: u8 = 0xA5;

fn failure(kind: ErrorKind, message: String) -> Failure {
    Failure::new(kind, message)
}

/// The fields of a successful answer (the envelope is added after), or why it failed.
type Answer = Result<Response, Failure>;

/// One ship the worker knows: from the setup, or placed by a `place` step.
#[derive(Debug, Clone)]
struct Ship {
    name: String,
    kind: String,
    cells: Vec<(i32, i32)>,
}

/// The worker's state: the library, and the game it is playing.
struct Worker {
    library: std::path::PathBuf,
    functions: Option<Functions>,
    mode: String,
    rows: i32,
    cols: i32,
    rules: GameRules,
    /// The fleet's names in the spec's order (how `remaining` and `sunk` are reported).
    fleet: Vec<String>,
    ships: Vec<Ship>,
    game: Game,
}

/// Serves the protocol for the library at `library` until standard input ends; returns the
/// process exit code (0, or 2 when the protocol streams cannot be set up).
pub fn serve(library: &Path) -> i32 {
    let protocol_out = match protect_streams() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("broadside native worker: could not set up its streams: {e}");
            return 2;
        }
    };
    install_crash_report();
    WORKER_PID.store(std::process::id(), Ordering::Relaxed);
    let mut out = std::io::BufWriter::new(std::fs::File::from(protocol_out.1));
    let input = std::io::BufReader::new(std::fs::File::from(protocol_out.0));
    let mut worker = Worker {
        library: library.to_path_buf(),
        functions: None,
        mode: "standard".into(),
        rows: 0,
        cols: 0,
        rules: GameRules::default(),
        fleet: Vec::new(),
        ships: Vec::new(),
        game: std::ptr::null_mut(),
    };
    for line in input.lines() {
        let Ok(line) = line else { break };
        let answer = match serde_json::from_str::<Request>(&line) {
            Ok(request) => worker.answer(&request),
            Err(e) => unreadable(&line, &e),
        };
        not_a_fork();
        if writeln!(out, "{}", answer.to_line())
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    worker.free_game();
    0
}

/// The answer to a line that is not a request: `unsupported` for an `op` this protocol does
/// not have, `protocol` for anything else, with the request's `id` where it can be read.
fn unreadable(line: &str, e: &serde_json::Error) -> Response {
    let head: Option<serde_json::Value> = serde_json::from_str(line).ok();
    let field = |k: &str| head.as_ref().and_then(|h| h.get(k));
    let id = field("id").and_then(serde_json::Value::as_u64);
    let failure = match field("op").and_then(serde_json::Value::as_str) {
        Some(op) if !OPS.contains(&op) => Failure::new(
            ErrorKind::Unsupported,
            format!("native submissions have no `{op}` operation"),
        ),
        _ => Failure::new(
            ErrorKind::Protocol,
            format!("the request could not be read: {e}"),
        ),
    };
    Response::failure(id, failure)
}

/// The worker's process id, set when it starts serving.
static WORKER_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Ends a process the library forked that returned into the worker: it must never answer
/// (the real worker does) nor call the library again. Its exit leaves the game to the worker.
fn not_a_fork() {
    let main = WORKER_PID.load(Ordering::Relaxed);
    if main != 0 && std::process::id() != main {
        // SAFETY: _exit(2) ends the process at once, running no destructors or atexit
        // handlers that could touch state shared with the worker.
        unsafe { nix::libc::_exit(0) };
    }
}

/// Keeps the protocol away from the library: returns (input, output) descriptors for the
/// protocol, then points descriptor 0 at `/dev/null` and descriptor 1 at standard error.
fn protect_streams() -> nix::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    let input = nix::unistd::dup(std::io::stdin())?;
    let output = nix::unistd::dup(std::io::stdout())?;
    let null = nix::fcntl::open(
        "/dev/null",
        nix::fcntl::OFlag::O_RDONLY,
        nix::sys::stat::Mode::empty(),
    )?;
    nix::unistd::dup2_stdin(&null)?;
    nix::unistd::dup2_stdout(std::io::stderr())?;
    Ok((input, output))
}

/// The function being called, as an index into [`NAMES`], for the crash report.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
const NAMES: [&str; 18] = [
    "(none)",
    "bs_abi_version",
    "bs_new_game",
    "bs_free_game",
    "bs_fire",
    "bs_remaining_ships",
    "bs_is_sunk",
    "bs_has_won",
    "bs_counter",
    "bs_was_targeted",
    "bs_ship_at",
    "bs_is_valid_position",
    "bs_place_ship",
    "bs_is_open_sea",
    "bs_check_if_hits",
    "bs_random_layout",
    "bs_drone",
    "bs_missile",
];

/// Records that `name` is about to be called (for a crash report).
fn calling(name: &str) {
    let i = NAMES.iter().position(|n| *n == name).unwrap_or(0);
    CURRENT.store(i, Ordering::Relaxed);
}

extern "C" fn on_crash(signal: i32) {
    // Only async-signal-safe calls: write(2) of static bytes. The handler was installed with
    // SA_RESETHAND, so returning re-runs the faulting instruction (or abort re-raises) and the
    // default action ends the process with the signal.
    let name = NAMES[CURRENT.load(Ordering::Relaxed) % NAMES.len()];
    let what: &[u8] = match signal {
        11 => b"segmentation fault",
        6 => b"abort",
        7 => b"bus error",
        8 => b"arithmetic error",
        4 => b"illegal instruction",
        _ => b"signal",
    };
    let parts: [&[u8]; 5] = [
        b"broadside native worker: ",
        what,
        b" in `",
        name.as_bytes(),
        b"`\n",
    ];
    for p in parts {
        // SAFETY: write(2) on a valid buffer is async-signal-safe.
        unsafe {
            nix::libc::write(2, p.as_ptr().cast(), p.len());
        }
    }
}

extern "C" fn on_exit() {
    // A library that calls exit(3) ends the worker through here: say where.
    let i = CURRENT.load(Ordering::Relaxed);
    if i == 0 || i >= NAMES.len() {
        return;
    }
    let parts: [&[u8]; 3] = [
        b"broadside native worker: the library called exit() in `",
        NAMES[i].as_bytes(),
        b"`\n",
    ];
    for p in parts {
        // SAFETY: write(2) on a valid buffer.
        unsafe {
            nix::libc::write(2, p.as_ptr().cast(), p.len());
        }
    }
}

fn install_crash_report() {
    // SAFETY: registers a plain function; it only calls write(2).
    unsafe {
        nix::libc::atexit(on_exit);
    }
    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
    let action = SigAction::new(
        SigHandler::Handler(on_crash),
        // On the alternate stack Rust's runtime sets up, so a stack overflow is reported too.
        SaFlags::SA_RESETHAND | SaFlags::SA_ONSTACK,
        SigSet::empty(),
    );
    for s in [
        Signal::SIGSEGV,
        Signal::SIGABRT,
        Signal::SIGBUS,
        Signal::SIGFPE,
        Signal::SIGILL,
    ] {
        // SAFETY: the handler only calls write(2).
        let _ = unsafe { sigaction(s, &action) };
    }
}

/// An output buffer of `size` bytes followed by guard bytes.
struct OutBuf {
    bytes: Vec<u8>,
    size: usize,
}

impl OutBuf {
    fn new(size: usize) -> OutBuf {
        OutBuf {
            bytes: vec![GUARD_BYTE; size + GUARD],
            size,
        }
    }

    fn ptr(&mut self) -> *mut c_char {
        self.bytes.as_mut_ptr().cast()
    }

    /// Checks the guard after `function` wrote here.
    fn check(&self, function: &str) -> Result<(), Failure> {
        let hurt = self.bytes[self.size..]
            .iter()
            .rposition(|b| *b != GUARD_BYTE);
        match hurt {
            None => Ok(()),
            Some(last) => Err(failure(
                ErrorKind::Overrun,
                format!(
                    "`{function}` wrote past the end of the {}-byte buffer it was given (at \
                     least {} too far)",
                    self.size,
                    plural(last + 1, "byte")
                ),
            )),
        }
    }

    /// The NUL-terminated text `function` wrote.
    fn text(&self, function: &str) -> Result<String, Failure> {
        self.check(function)?;
        let end = self.bytes[..self.size]
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| {
                failure(
                    ErrorKind::Type,
                    format!(
                        "`{function}` wrote no terminating NUL within the {}-byte buffer",
                        self.size
                    ),
                )
            })?;
        Ok(String::from_utf8_lossy(&self.bytes[..end]).into_owned())
    }
}

thread_local! {
    /// Argument buffers of past calls, scribbled over and kept until the game is freed, so a
    /// library that kept a borrowed pointer reads `???` (or a cell at (-77, -77)), the same
    /// on every run, instead of whatever the allocator put there.
    static GRAVEYARD: std::cell::RefCell<Vec<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Keeps a scribbled-over argument buffer until [`empty_graveyard`].
fn bury<T: 'static>(buffer: T) {
    GRAVEYARD.with(|g| g.borrow_mut().push(Box::new(buffer)));
}

/// Frees the buried argument buffers (after the game that might point at them is freed).
fn empty_graveyard() {
    GRAVEYARD.with(|g| g.borrow_mut().clear());
}

/// Borrowed C strings for one call, scribbled over and buried when dropped.
struct Borrowed(Vec<Vec<u8>>);

impl Borrowed {
    fn new() -> Borrowed {
        Borrowed(Vec::new())
    }

    fn add(&mut self, s: &str) -> *const c_char {
        let mut bytes: Vec<u8> = s.bytes().filter(|b| *b != 0).collect();
        bytes.push(0);
        self.0.push(bytes);
        self.0.last().expect("just pushed").as_ptr().cast()
    }
}

impl Borrowed {
    /// Overwrites every string (its NUL kept), so a library that kept a pointer reads `???`.
    fn scribble(&mut self) {
        for b in &mut self.0 {
            let n = b.len() - 1;
            b[..n].fill(b'?');
        }
    }
}

impl Drop for Borrowed {
    fn drop(&mut self) {
        self.scribble();
        bury(std::mem::take(&mut self.0));
    }
}

/// The ships of `ships` as `bs_ship`s, with their cells: the pointers stay valid while the
/// returned values live; the cells are scribbled over by [`scribble`].
fn c_ships(ships: &[Ship], strings: &mut Borrowed) -> (Vec<BsShip>, Vec<Vec<BsCell>>) {
    let cells: Vec<Vec<BsCell>> = ships
        .iter()
        .map(|s| {
            s.cells
                .iter()
                .map(|&(row, col)| BsCell { row, col })
                .collect()
        })
        .collect();
    let list = ships
        .iter()
        .zip(&cells)
        .map(|(s, c)| BsShip {
            name: strings.add(&s.name),
            kind: strings.add(&s.kind),
            cells: c.as_ptr(),
            length: c.len(),
        })
        .collect();
    (list, cells)
}

/// Overwrites and buries a fleet passed to the library.
fn scribble(mut list: Vec<BsShip>, mut cells: Vec<Vec<BsCell>>) {
    for c in cells.iter_mut().flatten() {
        *c = BsCell { row: -77, col: -77 };
    }
    for s in &mut list {
        s.length = 0;
    }
    bury(list);
    bury(cells);
}

/// A coordinate for the C ABI's `int`, clamped (a far-off cell stays far off).
fn int(n: i64) -> i32 {
    n.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

fn cell_of([row, col]: Pair) -> (i32, i32) {
    (int(row), int(col))
}

impl Worker {
    fn answer(&mut self, request: &Request) -> Response {
        not_a_fork();
        let answer = self.answer_inner(request);
        // Out of the library until the next call (see `on_exit`).
        CURRENT.store(0, Ordering::Relaxed);
        answer
    }

    fn answer_inner(&mut self, request: &Request) -> Response {
        let id = request.id();
        if let Request::Batch { requests, .. } = request {
            let mut responses = Vec::new();
            for r in requests {
                let one = self.answer(r);
                let failed = one.ok != Some(true);
                responses.push(one);
                if failed {
                    break;
                }
            }
            return Response::batch(id, responses);
        }
        match self.handle(request) {
            Ok(fields) => Response::success(id, fields),
            Err(f) => Response::failure(Some(id), f),
        }
    }

    fn handle(&mut self, request: &Request) -> Answer {
        if let Request::Hello { .. } = request {
            return self.hello();
        }
        if self.functions.is_none() {
            return Err(failure(
                ErrorKind::Protocol,
                "`hello` must come first".into(),
            ));
        }
        if let Request::NewGame { rules, setup, .. } = request {
            return self.new_game(rules, setup);
        }
        if self.game.is_null() {
            return Err(failure(ErrorKind::Protocol, "no game started".into()));
        }
        match request {
            Request::Fire { at, player, .. } => self.fire(*at, player.as_deref()),
            Request::Drone { axis, index, .. } => self.drone(*axis, *index),
            Request::Missile { at, .. } => self.missile(*at),
            Request::Place {
                ship,
                kind,
                length,
                at,
                dir,
                ..
            } => self.place(ship, kind, *length, *at, *dir),
            Request::Query { query, at, .. } => self.query(query, *at),
            Request::Probe { probe, .. } => self.probe(probe),
            Request::RandomLayouts { count, .. } => self.random_layouts(*count),
            Request::Observe { keys, .. } => {
                let mut state = State::default();
                for key in keys {
                    self.observe(*key, &mut state)?;
                }
                Ok(Response {
                    state: Some(state),
                    ..Response::default()
                })
            }
            Request::Hello { .. } | Request::NewGame { .. } | Request::Batch { .. } => {
                Err(failure(
                    ErrorKind::Protocol,
                    format!("`{}` came out of turn", request.op()),
                ))
            }
        }
    }

    fn f(&self) -> &Functions {
        self.functions.as_ref().expect("hello loaded the library")
    }

    /// The function `name` from the table, or a `missing` fault naming it.
    fn need<T: Copy>(&self, found: Option<T>, name: &str) -> Result<T, Failure> {
        calling(name);
        found.ok_or_else(|| {
            let file = self
                .library
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            failure(
                ErrorKind::Missing,
                format!(
                    "`{name}` is not defined in {file} (specs/abi/broadside.h declares it; \
                     export it with C linkage)"
                ),
            )
        })
    }

    fn hello(&mut self) -> Answer {
        if self.functions.is_none() {
            // SAFETY: this is the worker child; whatever the library does ends here.
            let functions = unsafe { Functions::load(&self.library) }.map_err(|e| {
                failure(
                    ErrorKind::Setup,
                    format!("the library could not be loaded: {e}"),
                )
            })?;
            let version = functions.version.ok_or_else(|| {
                failure(
                    ErrorKind::Setup,
                    "`bs_abi_version` is not defined: the library was not built against \
                     broadside.h (specs/abi/broadside.h)"
                        .to_string(),
                )
            })?;
            calling("bs_abi_version");
            // SAFETY: declared in the header as `uint32_t bs_abi_version(void)`.
            let v = unsafe { version() };
            if v != abi::VERSION {
                return Err(failure(
                    ErrorKind::Setup,
                    format!(
                        "the library implements broadside ABI version {v}; this broadside \
                         speaks version {} (rebuild it against this broadside's \
                         specs/abi/broadside.h)",
                        abi::VERSION
                    ),
                ));
            }
            self.functions = Some(functions);
        }
        Ok(Response {
            protocol: Some(u64::from(crate::protocol::VERSION)),
            driver: Some(DRIVER.into()),
            ..Response::default()
        })
    }

    fn free_game(&mut self) {
        if self.game.is_null() {
            return;
        }
        if let Some(free) = self.functions.as_ref().and_then(|f| f.free_game) {
            calling("bs_free_game");
            // SAFETY: the game came from bs_new_game and is freed once.
            unsafe { free(self.game) };
        }
        self.game = std::ptr::null_mut();
        empty_graveyard();
    }

    /// Creates a game of `ships` through the library.
    fn create(&self, ships: &[Ship]) -> Result<Game, Failure> {
        let new_game = self.need(self.f().new_game, "bs_new_game")?;
        self.need(self.f().free_game, "bs_free_game")?;
        let mut strings = Borrowed::new();
        let mode = strings.add(&self.mode);
        let (list, cells) = c_ships(ships, &mut strings);
        calling("bs_new_game");
        // SAFETY: the arguments follow the header; they live until after the call.
        let game = unsafe { new_game(mode, self.rows, self.cols, list.as_ptr(), list.len()) };
        scribble(list, cells);
        if game.is_null() {
            return Err(failure(
                ErrorKind::Type,
                format!(
                    "`bs_new_game` returned NULL for a {}×{} board with {}; expected a game",
                    self.rows,
                    self.cols,
                    plural(ships.len(), "ship")
                ),
            ));
        }
        Ok(game)
    }

    fn destroy(&self, game: Game) {
        if let Some(free) = self.f().free_game {
            calling("bs_free_game");
            // SAFETY: the game came from bs_new_game and is freed once.
            unsafe { free(game) };
        }
    }

    fn new_game(&mut self, rules: &GameRules, setup: &GameSetup) -> Answer {
        self.free_game();
        if rules.players.len() > 1 {
            return Err(failure(
                ErrorKind::Unsupported,
                "the native ABI covers one-player games only (not grenades-8x8)".into(),
            ));
        }
        self.rules = rules.clone();
        self.rows = i32::from(rules.rows);
        self.cols = i32::from(rules.cols);
        self.mode = rules.mode.clone();
        self.fleet = rules.fleet.iter().map(|f| f.name.clone()).collect();
        let kind_of = |name: &str| -> String {
            rules
                .fleet
                .iter()
                .find(|f| f.name == name)
                .map_or(name, |f| f.kind.as_str())
                .to_string()
        };
        self.ships = setup
            .ships
            .iter()
            .map(|s| Ship {
                name: s.name.clone(),
                kind: kind_of(&s.name),
                cells: s.cells.iter().copied().map(cell_of).collect(),
            })
            .collect();
        self.game = self.create(&self.ships)?;
        Ok(Response::default())
    }

    /// The size of a ship-name buffer: room for the longest name the worker knows.
    fn name_size(&self) -> usize {
        let longest = self
            .fleet
            .iter()
            .chain(self.ships.iter().map(|s| &s.name))
            .map(String::len)
            .max()
            .unwrap_or(0);
        longest.max(abi::NAME_MAX) + 1
    }

    /// A `BS_*` outcome code from `function`, read as an outcome.
    fn outcome(&self, function: &str, code: i32) -> Result<Outcome, Failure> {
        if code < 0 {
            return Err(error_code(function, code));
        }
        abi::outcome(code).ok_or_else(|| {
            failure(
                ErrorKind::Type,
                format!(
                    "`{function}` returned {code}; expected an outcome code (BS_MISS … BS_REJECTED)"
                ),
            )
        })
    }

    /// A 0/1 answer from `function`.
    fn flag(&self, function: &str, v: i32) -> Result<bool, Failure> {
        match v {
            0 => Ok(false),
            1 => Ok(true),
            v if v < 0 => Err(error_code(function, v)),
            v => Err(failure(
                ErrorKind::Type,
                format!("`{function}` returned {v}; expected 0 or 1"),
            )),
        }
    }

    fn kind_of(&self, name: &str) -> String {
        self.ships
            .iter()
            .find(|s| s.name == name)
            .map_or_else(|| name.to_string(), |s| s.kind.clone())
    }

    fn fire(&mut self, at: Pair, player: Option<&str>) -> Answer {
        if player.is_some() {
            return Err(failure(
                ErrorKind::Unsupported,
                "the native ABI covers one-player games only".into(),
            ));
        }
        let (row, col) = cell_of(at);
        let (outcome, ship) = self.shoot(self.game, row, col)?;
        Ok(Response {
            ship: ship.map(|s| self.kind_of(&s)),
            ..Response::outcome(outcome)
        })
    }

    /// Fires at `game`; the ship's name on a sinking.
    fn shoot(&self, game: Game, row: i32, col: i32) -> Result<(Outcome, Option<String>), Failure> {
        let fire = self.need(self.f().fire, "bs_fire")?;
        let mut buf = OutBuf::new(self.name_size());
        buf.bytes[0] = 0;
        // SAFETY: `buf` has `size` bytes (and a guard); `game` is alive.
        let code = unsafe { fire(game, row, col, buf.ptr(), buf.size) };
        buf.check("bs_fire")?;
        let outcome = self.outcome("bs_fire", code)?;
        if outcome != Outcome::Sunk {
            return Ok((outcome, None));
        }
        let name = buf.text("bs_fire")?;
        Ok((outcome, (!name.is_empty()).then_some(name)))
    }

    fn drone(&mut self, axis: Axis, index: i64) -> Answer {
        let drone = self.need(self.f().drone, "bs_drone")?;
        let axis = match axis {
            Axis::Row => 0,
            Axis::Col => 1,
        };
        let index = int(index);
        let mut count: i32 = -1;
        // SAFETY: `count` is a valid int for the call.
        let code = unsafe { drone(self.game, axis, index, &mut count) };
        let outcome = self.outcome("bs_drone", code)?;
        let mut fields = Response::outcome(outcome);
        if outcome == Outcome::Drone {
            let n = u32::try_from(count).map_err(|_| {
                failure(
                    ErrorKind::Type,
                    format!("`bs_drone` answered BS_DRONE with a count of {count}"),
                )
            })?;
            fields.count = Some(n);
        }
        Ok(fields)
    }

    fn missile(&mut self, at: Pair) -> Answer {
        let missile = self.need(self.f().missile, "bs_missile")?;
        let (row, col) = cell_of(at);
        let mut cells = vec![-1i32; 9 + GUARD / 4];
        let guard = 0x5A5A_5A5Ai32;
        cells[9..].fill(guard);
        // SAFETY: `cells` has 9 entries (and a guard).
        let code = unsafe { missile(self.game, row, col, cells.as_mut_ptr()) };
        if cells[9..].iter().any(|c| *c != guard) {
            return Err(failure(
                ErrorKind::Overrun,
                "`bs_missile` wrote past the 9 entries of `cells`".into(),
            ));
        }
        let outcome = self.outcome("bs_missile", code)?;
        let mut fields = Response::outcome(outcome);
        if outcome == Outcome::Missile {
            let mut struck = Vec::new();
            for (k, code) in cells[..9].iter().enumerate() {
                let (r, c) = (row - 1 + k as i32 / 3, col - 1 + k as i32 % 3);
                if r < 0 || c < 0 || r >= self.rows || c >= self.cols {
                    continue;
                }
                let o = self.outcome("bs_missile", *code)?;
                let cell = [i64::from(r), i64::from(c)];
                struck.push(Field::Valid((cell.into(), o.into())));
            }
            fields.cells = Some(struck.into());
        }
        Ok(fields)
    }

    fn place(&mut self, name: &str, kind: &str, length: u8, at: Pair, dir: Dir) -> Answer {
        let place = self.need(self.f().place_ship, "bs_place_ship")?;
        let (row, col) = cell_of(at);
        let dir = abi::direction(dir);
        let length = i32::from(length);
        let mut strings = Borrowed::new();
        let (n, k) = (strings.add(name), strings.add(kind));
        // SAFETY: the strings live until after the call.
        let code = unsafe { place(self.game, n, k, row, col, dir, length) };
        drop(strings);
        let outcome = self.outcome("bs_place_ship", code)?;
        if outcome == Outcome::Ok {
            let (dr, dc) = [(0, 1), (1, 0), (0, -1), (-1, 0)][dir as usize];
            self.ships.push(Ship {
                name: name.to_string(),
                kind: kind.to_string(),
                cells: (0..length).map(|i| (row + dr * i, col + dc * i)).collect(),
            });
        } else if outcome != Outcome::Rejected {
            return Err(failure(
                ErrorKind::Type,
                format!(
                    "`bs_place_ship` returned {}; expected BS_OK or BS_REJECTED",
                    outcome.word()
                ),
            ));
        }
        Ok(Response::outcome(outcome))
    }

    fn cell_question(
        &self,
        game: Game,
        function: &str,
        row: i32,
        col: i32,
    ) -> Result<bool, Failure> {
        let f = self.f();
        let found = match function {
            "bs_was_targeted" => f.was_targeted,
            "bs_is_valid_position" => f.is_valid_position,
            "bs_is_open_sea" => f.is_open_sea,
            _ => f.check_if_hits,
        };
        let question = self.need(found, function)?;
        // SAFETY: `game` is alive.
        let v = unsafe { question(game, row, col) };
        self.flag(function, v)
    }

    fn ship_at(&self, game: Game, row: i32, col: i32) -> Result<Option<String>, Failure> {
        let ship_at = self.need(self.f().ship_at, "bs_ship_at")?;
        let mut buf = OutBuf::new(self.name_size());
        // SAFETY: `buf` has `size` bytes (and a guard); `game` is alive.
        let v = unsafe { ship_at(game, row, col, buf.ptr(), buf.size) };
        buf.check("bs_ship_at")?;
        if self.flag("bs_ship_at", v)? {
            buf.text("bs_ship_at").map(Some)
        } else {
            Ok(None)
        }
    }

    fn query(&mut self, query: &str, at: Pair) -> Answer {
        let (row, col) = cell_of(at);
        let answer = |value| {
            Ok(Response {
                value: Some(CellValue(value).into()),
                ..Response::outcome(Outcome::Ok)
            })
        };
        let function = match query {
            "valid" => "bs_is_valid_position",
            "targeted" => "bs_was_targeted",
            "open-sea" => "bs_is_open_sea",
            "fresh-hit" => "bs_check_if_hits",
            "ship-at" => {
                let name = self.ship_at(self.game, row, col)?;
                return answer(QueryValue::Ship(name));
            }
            other => {
                return Err(failure(
                    ErrorKind::Unsupported,
                    format!("the native ABI has no query {other:?}"),
                ));
            }
        };
        let value = self.cell_question(self.game, function, row, col)?;
        answer(QueryValue::Bool(value))
    }

    fn is_sunk(&self, game: Game, name: &str) -> Result<bool, Failure> {
        let is_sunk = self.need(self.f().is_sunk, "bs_is_sunk")?;
        let mut strings = Borrowed::new();
        let n = strings.add(name);
        // SAFETY: the string lives until after the call.
        let v = unsafe { is_sunk(game, n) };
        self.flag("bs_is_sunk", v).map_err(|f| Failure {
            message: format!("{} for the ship {name:?}", f.message),
            ..f
        })
    }

    fn counter(&self, game: Game, which: i32, key: &str) -> Result<u32, Failure> {
        let counter = self.need(self.f().counter, "bs_counter")?;
        // SAFETY: `game` is alive.
        let v = unsafe { counter(game, which) };
        u32::try_from(v).map_err(|_| {
            failure(
                ErrorKind::Type,
                format!("`bs_counter` returned {v} for {key}; expected a count (0 or more)"),
            )
        })
    }

    fn remaining(&self, game: Game) -> Result<Vec<String>, Failure> {
        let remaining = self.need(self.f().remaining_ships, "bs_remaining_ships")?;
        let size = self.ships.iter().map(|s| s.name.len() + 1).sum::<usize>() + 1;
        let mut buf = OutBuf::new(size);
        // SAFETY: `buf` has `size` bytes (and a guard); `game` is alive.
        let n = unsafe { remaining(game, buf.ptr(), buf.size) };
        let text = buf.text("bs_remaining_ships")?;
        if n < 0 {
            return Err(error_code("bs_remaining_ships", n));
        }
        let mut names: Vec<String> = text.lines().map(String::from).collect();
        if names.len() != n as usize {
            return Err(failure(
                ErrorKind::Type,
                format!(
                    "`bs_remaining_ships` returned {n} but wrote {} names: {text:?}",
                    names.len()
                ),
            ));
        }
        let order = |n: &String| self.fleet.iter().position(|f| f == n).unwrap_or(usize::MAX);
        names.sort_by_key(order);
        Ok(names)
    }

    /// The fleet's ships in the spec's order.
    fn ordered_ships(&self) -> Vec<&Ship> {
        let mut ships: Vec<&Ship> = self.ships.iter().collect();
        ships.sort_by_key(|s| {
            self.fleet
                .iter()
                .position(|f| *f == s.name)
                .unwrap_or(usize::MAX)
        });
        ships
    }

    /// Sets `key` in `state` from the library's answers.
    fn observe(&self, key: StateKey, state: &mut State) -> Result<(), Failure> {
        let game = self.game;
        match key {
            StateKey::Remaining => state.remaining = Some(self.remaining(game)?.into()),
            StateKey::Sunk => {
                let mut sunk = Vec::new();
                for s in self.ordered_ships() {
                    if self.is_sunk(game, &s.name)? {
                        sunk.push(s.name.clone());
                    }
                }
                state.sunk = Some(sunk.into());
            }
            StateKey::Won => {
                let has_won = self.need(self.f().has_won, "bs_has_won")?;
                // SAFETY: `game` is alive.
                let v = unsafe { has_won(game) };
                state.won = Some(self.flag("bs_has_won", v)?.into());
            }
            StateKey::Shots => {
                let n = self.counter(game, abi::COUNTER_SHOTS, key.name())?;
                state.shots = Some(n.into());
            }
            StateKey::Turns => {
                let n = self.counter(game, abi::COUNTER_TURNS, key.name())?;
                state.turns = Some(n.into());
            }
            StateKey::Targeted => {
                let mut cells = Vec::new();
                for r in 0..self.rows {
                    for c in 0..self.cols {
                        if self.cell_question(game, "bs_was_targeted", r, c)? {
                            cells.push(Field::Valid([i64::from(r), i64::from(c)]));
                        }
                    }
                }
                state.targeted = Some(cells.into());
            }
            StateKey::Board => state.board = Some(self.board(game)?.into()),
            other => {
                return Err(failure(
                    ErrorKind::Unsupported,
                    format!("the native ABI cannot observe `{other}`"),
                ));
            }
        }
        Ok(())
    }

    /// The board in the spec's glyphs, from bs_ship_at, bs_was_targeted and bs_is_sunk.
    fn board(&self, game: Game) -> Result<Vec<String>, Failure> {
        let d = &self.rules.display;
        let mut rows = Vec::new();
        for r in 0..self.rows {
            let mut line = Vec::new();
            for c in 0..self.cols {
                let shot = self.cell_question(game, "bs_was_targeted", r, c)?;
                let cell = match (shot, self.ship_at(game, r, c)?) {
                    (false, _) => &d.untried,
                    (true, None) => &d.miss,
                    (true, Some(name)) if self.is_sunk(game, &name)? => {
                        d.sunk_by_kind.get(&self.kind_of(&name)).unwrap_or(&d.sunk)
                    }
                    (true, Some(_)) => &d.hit,
                };
                line.push(cell.as_str());
            }
            rows.push(line.join(&d.separator));
        }
        Ok(rows)
    }

    /// What a fresh copy of the game looks like through the questions: shots, targeted
    /// cells, and the ship on every cell.
    fn snapshot(&self, game: Game) -> Result<String, Failure> {
        let mut out = format!(
            "shots {}; ",
            self.counter(game, abi::COUNTER_SHOTS, "shots")?
        );
        for r in 0..self.rows {
            for c in 0..self.cols {
                let t = self.cell_question(game, "bs_was_targeted", r, c)?;
                let s = self.ship_at(game, r, c)?;
                if t || s.is_some() {
                    out.push_str(&format!(
                        "({r},{c}) {}{}; ",
                        if t { "shot " } else { "" },
                        s.unwrap_or_default()
                    ));
                }
            }
        }
        for s in &self.ships {
            out.push_str(&format!(
                "{} sunk {}; ",
                s.name,
                self.is_sunk(game, &s.name)?
            ));
        }
        Ok(out)
    }

    /// The ship on each cell of the setup, as a snapshot of a new game would show it.
    fn expected_fresh(&self) -> String {
        let mut out = "shots 0; ".to_string();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if let Some(s) = self.ships.iter().find(|s| s.cells.contains(&(r, c))) {
                    out.push_str(&format!("({r},{c}) {}; ", s.name));
                }
            }
        }
        for s in &self.ships {
            out.push_str(&format!("{} sunk false; ", s.name));
        }
        out
    }

    /// The colab-6x6 probes, in the ABI's terms.
    fn probe(&mut self, name: &str) -> Answer {
        let mut problems = Vec::new();
        match name {
            "new-game-shape" => {
                let game = self.create(&self.ships)?;
                let seen = self.snapshot(game);
                self.destroy(game);
                let seen = seen?;
                let want = self.expected_fresh();
                if seen != want {
                    problems.push(format!(
                        "a new game does not show the fleet it was given, with no shots: \
                         expected {want}got {seen}"
                    ));
                }
            }
            "independent-games" => {
                let first = self.create(&self.ships)?;
                let second = match self.create(&self.ships) {
                    Ok(g) => g,
                    Err(f) => {
                        self.destroy(first);
                        return Err(f);
                    }
                };
                let result = (|| {
                    let target = self.ships.first().and_then(|s| s.cells.first()).copied();
                    if let Some((r, c)) = target {
                        self.shoot(first, r, c)?;
                    }
                    let seen = self.snapshot(second)?;
                    let want = self.expected_fresh();
                    if seen != want {
                        problems.push(format!(
                            "a shot at one game changed another: expected {want}got {seen}"
                        ));
                    }
                    Ok(())
                })();
                self.destroy(first);
                self.destroy(second);
                result?;
            }
            "questions-change-nothing" => {
                let game = self.create(&self.ships)?;
                let result = (|| {
                    if let Some(&(r, c)) = self.ships.first().and_then(|s| s.cells.first()) {
                        self.shoot(game, r, c)?;
                    }
                    let before = self.snapshot(game)?;
                    for r in -1..=self.rows {
                        for c in -1..=self.cols {
                            self.cell_question(game, "bs_is_valid_position", r, c)?;
                            self.cell_question(game, "bs_was_targeted", r, c)?;
                            self.ship_at(game, r, c)?;
                        }
                    }
                    for s in &self.ships {
                        self.is_sunk(game, &s.name)?;
                    }
                    self.remaining(game)?;
                    let has_won = self.need(self.f().has_won, "bs_has_won")?;
                    // SAFETY: `game` is alive.
                    self.flag("bs_has_won", unsafe { has_won(game) })?;
                    let after = self.snapshot(game)?;
                    if before != after {
                        problems.push(format!(
                            "asking questions changed the game: before {before}after {after}"
                        ));
                    }
                    Ok(())
                })();
                self.destroy(game);
                result?;
            }
            other => {
                return Err(failure(
                    ErrorKind::Unsupported,
                    format!("the native ABI has no probe `{other}`"),
                ));
            }
        }
        if problems.is_empty() {
            Ok(Response::outcome(Outcome::Ok))
        } else {
            Ok(Response {
                reason: Some(problems.join("; ")),
                ..Response::outcome(Outcome::Rejected)
            })
        }
    }

    fn random_layouts(&mut self, count: u32) -> Answer {
        let random = self.need(self.f().random_layout, "bs_random_layout")?;
        let fleet: Vec<(String, String, usize)> = self
            .rules
            .fleet
            .iter()
            .map(|f| (f.name.clone(), f.kind.clone(), usize::from(f.length)))
            .collect();
        let mut layouts = Vec::new();
        for seed in 1..=u64::from(count) {
            let mut strings = Borrowed::new();
            let mut cells: Vec<Vec<BsCell>> = fleet
                .iter()
                .map(|(_, _, n)| vec![BsCell { row: -1, col: -1 }; *n])
                .collect();
            let mut list: Vec<BsShip> = fleet
                .iter()
                .zip(cells.iter_mut())
                .map(|((name, kind, _), c)| BsShip {
                    name: strings.add(name),
                    kind: strings.add(kind),
                    cells: c.as_mut_ptr(),
                    length: c.len(),
                })
                .collect();
            // SAFETY: every ship's `cells` points at `length` writable cells.
            let v = unsafe { random(self.rows, self.cols, list.as_mut_ptr(), list.len(), seed) };
            if v < 0 {
                return Err(error_code("bs_random_layout", v));
            }
            let ships: crate::protocol::Layout = cells
                .iter()
                .map(|c| {
                    let cells = c
                        .iter()
                        .map(|x| [i64::from(x.row), i64::from(x.col)].into());
                    Field::Valid(cells.collect())
                })
                .collect();
            layouts.push(Field::Valid(ships));
        }
        Ok(Response {
            layouts: Some(layouts.into()),
            ..Response::outcome(Outcome::Ok)
        })
    }
}

/// `1 byte`, `2 bytes`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn error_code(function: &str, code: i32) -> Failure {
    let name = match code {
        abi::ERR => "BS_ERR".to_string(),
        abi::ERR_BUFFER => "BS_ERR_BUFFER".to_string(),
        n => format!("{n}"),
    };
    failure(
        ErrorKind::Exception,
        format!("`{function}` reported an error ({name})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_one_byte_past_a_buffer_is_an_overrun() {
        let mut buf = OutBuf::new(8);
        buf.bytes[..8].copy_from_slice(b"Cruiser\0");
        assert_eq!(buf.text("bs_fire").ok(), Some("Cruiser".to_string()));
        buf.bytes[8] = 0;
        let f = buf.text("bs_fire").err().unwrap();
        assert_eq!(f.kind, ErrorKind::Overrun);
        assert!(f.message.contains("8-byte buffer"), "{}", f.message);
        assert!(f.message.contains("1 byte too far"), "{}", f.message);
    }

    #[test]
    fn a_name_without_its_nul_is_a_type_fault() {
        let mut buf = OutBuf::new(4);
        buf.bytes[..4].copy_from_slice(b"Subm");
        let f = buf.text("bs_ship_at").err().unwrap();
        assert_eq!(f.kind, ErrorKind::Type);
    }

    #[test]
    fn an_unknown_op_is_unsupported_and_an_unreadable_request_a_protocol_failure() {
        for (line, id, kind, said) in [
            (
                r#"{"id": 5, "op": "teleport"}"#,
                Some(5),
                ErrorKind::Unsupported,
                "native submissions have no `teleport` operation",
            ),
            (
                r#"{"id": 6, "op": "fire", "at": "B2", "player": null}"#,
                Some(6),
                ErrorKind::Protocol,
                "the request could not be read: invalid type: string \"B2\"",
            ),
            (
                "not json",
                None,
                ErrorKind::Protocol,
                "the request could not be read",
            ),
        ] {
            let e = serde_json::from_str::<Request>(line).unwrap_err();
            let answer = unreadable(line, &e);
            assert_eq!((answer.id, answer.ok), (id, Some(false)), "{line}");
            let error = answer.error.unwrap();
            assert_eq!(error.kind, kind, "{line}");
            assert!(error.message.starts_with(said), "{line}: {}", error.message);
        }
    }

    #[test]
    fn borrowed_strings_are_scribbled_over() {
        let mut strings = Borrowed::new();
        let p = strings.add("Destroyer");
        // SAFETY: `p` points into `strings`, alive here.
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes(),
            b"Destroyer"
        );
        strings.scribble();
        // SAFETY: as above; the NUL is kept.
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes(),
            b"?????????"
        );
    }
}
