//! The wire protocol's JSON, pinned: one request of every kind, as the harness sends it while
//! playing the published scenarios, and one answer of every kind, as the native worker
//! writes it (`specs/protocol.md` documents both for driver authors). And every request the
//! harness sends reads back, as the native worker reads it, as the same request.

use broadside::engine::{Answer, Outcome, QueryValue};
use broadside::fault::Fault;
use broadside::harness::run_scenario;
use broadside::protocol::game_server::{Begin, Reply, Then};
use broadside::protocol::{CellValue, ErrorKind, Failure, Field, Request, Response, State};
use broadside::scenario::{Action, Scenario, Setup};
use broadside::spec::{Rules, SpecSet, StateKey};
use broadside::target::{Call, Observed, Reference, Replied, Target};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The reference, taking the reference's state wherever a spec hands it over, that turns
/// every call into the request a child target would get and keeps them.
struct Recorder {
    reference: Reference,
    rules: Option<Arc<Rules>>,
    next_id: u64,
    sent: Vec<Request>,
}

impl Recorder {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

impl Target for Recorder {
    fn name(&self) -> String {
        "recorder".into()
    }

    fn takes_given(&self) -> bool {
        true
    }

    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault> {
        if self.rules.is_none() {
            let id = self.id();
            self.sent.push(Request::hello(id, rules));
        }
        self.rules = Some(rules.clone());
        let id = self.id();
        self.sent.push(Request::new_game(id, rules, setup));
        self.reference.new_game(rules, setup)
    }

    fn act(&mut self, action: &Action) -> Result<Answer, Fault> {
        self.reference.act(action)
    }

    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault> {
        self.reference.observe(key)
    }

    fn play(&mut self, calls: &[Call]) -> Vec<Result<Replied, Fault>> {
        let rules = self.rules.clone().expect("new_game came first");
        let requests: Vec<Request> = calls
            .iter()
            .map(|c| {
                let id = self.id();
                Request::call(id, c, &rules)
            })
            .collect();
        let id = self.id();
        self.sent.push(Request::batch(id, requests));
        self.reference.play(calls)
    }
}

/// Every request the harness sends while playing the published step scenarios, every
/// assignment in turn, with the reference's state handed over wherever a spec says so.
fn recorded() -> Vec<Request> {
    let specs = SpecSet::builtin();
    let mut sent = Vec::new();
    for id in specs.ids() {
        let scenarios: Vec<Scenario> = broadside::published::load(id, &specs)
            .unwrap_or_else(|e| panic!("{id}'s published scenarios load: {e:?}"));
        let mut recorder = Recorder {
            reference: Reference::new(),
            rules: None,
            next_id: 0,
            sent: Vec::new(),
        };
        for s in scenarios.iter().filter(|s| s.dialogue.is_none()) {
            run_scenario(s, &mut recorder);
        }
        sent.extend(recorder.sent);
    }
    sent
}

/// The requests in `sent`, a batch's own requests after it.
fn flattened(sent: &[Request]) -> Vec<&Request> {
    let mut out = Vec::new();
    for r in sent {
        out.push(r);
        if let Request::Batch { requests, .. } = r {
            out.extend(flattened(requests));
        }
    }
    out
}

#[test]
fn every_request_the_harness_sends_reads_back_as_the_same_request() {
    let sent = recorded();
    assert!(sent.len() > 100, "{} requests", sent.len());
    for r in &sent {
        let line = r.to_line();
        let back: Request = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(&back, r, "{line}");
    }
}

#[test]
fn one_request_of_every_kind_is_pinned() {
    let sent = recorded();
    let all = flattened(&sent);
    let mut first: BTreeMap<String, &Request> = BTreeMap::new();
    for r in &all {
        let mut name = r.op().to_string();
        let given = matches!(
            r,
            Request::Observe { given: Some(_), .. } | Request::Fire { given: Some(_), .. }
        );
        if given {
            name.push_str("-given");
        }
        if !matches!(r, Request::Batch { .. }) {
            first.entry(name).or_insert(r);
        }
    }
    let kinds: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(
        kinds,
        [
            "drone",
            "fire",
            "fire-given",
            "hello",
            "missile",
            "new_game",
            "observe",
            "observe-given",
            "place",
            "probe",
            "query",
            "random_layouts"
        ]
    );
    for (name, r) in first {
        insta::assert_snapshot!(format!("request-{name}"), r.to_line());
    }
    let two = all
        .iter()
        .filter(|r| !matches!(r, Request::Batch { .. } | Request::NewGame { .. }))
        .skip(1)
        .take(2)
        .map(|r| (*r).clone())
        .collect();
    insta::assert_snapshot!("request-batch", Request::batch(9, two).to_line());
}

/// An answer of every kind, as the native worker writes it.
#[allow(
    clippy::too_many_lines,
    reason = "a table with an entry for every kind of answer, read top to bottom"
)]
fn answers() -> Vec<(&'static str, Response)> {
    let ok = |fields: Response| Response::success(7, fields);
    let cell = |r: i64, c: i64| Field::Valid([r, c]);
    let observed = State {
        remaining: Some(vec!["Destroyer".to_string()].into()),
        sunk: Some(vec!["Submarine".to_string()].into()),
        won: Some(false.into()),
        shots: Some(3.into()),
        turns: Some(3.into()),
        targeted: Some(vec![cell(1, 1), cell(1, 2), cell(4, 0)].into()),
        board: Some(vec![". . .".to_string(), ". × ✓".to_string()].into()),
        ..State::default()
    };
    vec![
        (
            "hello",
            ok(Response {
                protocol: Some(1),
                driver: Some("broadside-native/1".into()),
                ..Response::default()
            }),
        ),
        ("new_game", ok(Response::default())),
        (
            "fire",
            ok(Response {
                ship: Some("Submarine".into()),
                ..Response::outcome(Outcome::Sunk)
            }),
        ),
        (
            "drone",
            ok(Response {
                count: Some(2),
                ..Response::outcome(Outcome::Drone)
            }),
        ),
        (
            "missile",
            ok(Response {
                cells: Some(
                    vec![
                        Field::Valid((cell(0, 0), Outcome::Miss.into())),
                        Field::Valid((cell(0, 1), Outcome::Hit.into())),
                    ]
                    .into(),
                ),
                ..Response::outcome(Outcome::Missile)
            }),
        ),
        (
            "place",
            ok(Response {
                reason: Some("the ship would touch another".into()),
                ..Response::outcome(Outcome::Rejected)
            }),
        ),
        (
            "query",
            ok(Response {
                value: Some(CellValue(QueryValue::Ship(None)).into()),
                ..Response::outcome(Outcome::Ok)
            }),
        ),
        ("probe", ok(Response::outcome(Outcome::Ok))),
        (
            "random_layouts",
            ok(Response {
                layouts: Some(
                    vec![Field::Valid(vec![Field::Valid(vec![
                        cell(0, 0),
                        cell(0, 1),
                    ])])]
                    .into(),
                ),
                ..Response::outcome(Outcome::Ok)
            }),
        ),
        (
            "observe",
            ok(Response {
                state: Some(observed),
                ..Response::default()
            }),
        ),
        (
            "batch",
            Response::batch(
                8,
                vec![
                    Response::success(9, Response::outcome(Outcome::Hit)),
                    Response::failure(
                        Some(10),
                        Failure::new(ErrorKind::Missing, "`bs_drone` is not defined"),
                    ),
                ],
            ),
        ),
        (
            "error",
            Response {
                output: Some("about to fire\n".into()),
                ..Response::failure(
                    Some(7),
                    Failure {
                        kind: ErrorKind::Exception,
                        message: "`fire` raised KeyError: 3".into(),
                        traceback: Some("  File \"battleships.py\", line 12, in fire".into()),
                    },
                )
            },
        ),
    ]
}

#[test]
fn one_answer_of_every_kind_is_pinned_and_reads_back() {
    for (name, answer) in answers() {
        let line = answer.to_line();
        insta::assert_snapshot!(format!("answer-{name}"), line);
        assert_eq!(Response::from_line(&line), Ok(answer), "{line}");
    }
}

/// Lines of one kind, by the name of their snapshot.
type Named<T> = Vec<(&'static str, T)>;

/// One game-server line of every kind, as broadside and the bundled servers say them.
fn game_server_lines() -> (Named<Begin>, Named<Reply>) {
    let fifos = |env: BTreeMap<String, String>| Begin {
        stdin: "/run/broadside/g-7.in".into(),
        stdout: "/run/broadside/g-7.out".into(),
        stderr: "/run/broadside/g-7.err".into(),
        env,
    };
    let env = BTreeMap::from([
        ("BROADSIDE_SEED".to_string(), "42".to_string()),
        // A tab and a line break inside a value stay inside the JSON.
        ("NOTE".to_string(), "a\tb\nc".to_string()),
    ]);
    let begins = vec![
        ("game", fifos(BTreeMap::new())),
        ("game-with-environment", fifos(env)),
    ];
    let replies = vec![
        ("started", Reply::Started),
        (
            "end",
            Reply::End {
                code: 0,
                then: Then::Next,
            },
        ),
        (
            "end-taint",
            Reply::End {
                code: 1,
                then: Then::Taint,
            },
        ),
        (
            "end-spent",
            Reply::End {
                code: -3,
                then: Then::Spent,
            },
        ),
    ];
    (begins, replies)
}

#[test]
fn one_game_server_line_of_every_kind_is_pinned_and_reads_back() {
    let (begins, replies) = game_server_lines();
    for (name, begin) in begins {
        let line = begin.line().expect("a line");
        assert!(!line.contains('\n'), "{line}");
        insta::assert_snapshot!(format!("game-server-{name}"), line);
        assert_eq!(Begin::parse(&line), Ok(begin), "{line}");
    }
    for (name, reply) in replies {
        let line = reply.line();
        insta::assert_snapshot!(format!("game-server-reply-{name}"), line);
        assert_eq!(Reply::parse(&line), Ok(reply), "{line}");
    }
}

#[test]
fn a_line_that_is_not_the_game_servers_is_refused_with_what_was_expected() {
    for line in [
        "",
        "start",
        "started ",
        "end",
        "end x",
        "end 0 tainted",
        "end 0 taint spent",
        "end  0",
        "end 99999999999",
    ] {
        let err = Reply::parse(line).expect_err(line);
        assert!(err.to_string().contains("expected"), "{err}");
    }
    for line in [
        "game\ta\tb",
        "play\ta\tb\tc",
        "game\ta\tb\tc\t[1]",
        "game\ta\tb\tc\t{\"SEED\": 1}",
        "game\ta\tb\tc\t{}\textra",
    ] {
        assert!(Begin::parse(line).is_err(), "{line:?}");
    }
    // A path that would break the line is refused, not sent.
    let (mut begins, _) = game_server_lines();
    let (_, mut begin) = begins.remove(0);
    begin.stdout = "/tmp/a\tb".into();
    assert!(begin.line().is_err());
}
