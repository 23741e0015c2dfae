// SPDX-License-Identifier: GPL-2.0
//! Host tests of the tables: the shared selftest table, and the generated
//! event tables against the JSON (read with a parser of our own), the
//! formats and the ACPI identifiers. Expected values are computed from
//! NOTES.md's rules as written there, not by the functions under test.

use std::{path::PathBuf, process::Command};
use xgene_logic::{
    config, events,
    hw::{PmuType, Version},
    ids, selftest,
};

const ALL_V: [Version; 3] = [Version::V1, Version::V2, Version::V3];
const ALL_T: [PmuType; 5] = [
    PmuType::L3c,
    PmuType::Iob,
    PmuType::IobSlow,
    PmuType::Mcb,
    PmuType::Mc,
];

fn top() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../..")
}

#[test]
fn shared_table() {
    assert_eq!(selftest::run_all(), Ok(selftest::CASES.len()));
    assert!(selftest::CASES.len() >= 40);
}

// ---------------------------------------------------------------------
// The event tables against the JSON, read here with a parser of our own
// (the generator is Python; this side must not share its code).

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) {
        self.ws();
        assert_eq!(
            self.s.get(self.i),
            Some(&c),
            "JSON: expected {:?} at {}",
            c as char,
            self.i
        );
        self.i += 1;
    }
    fn peek(&mut self) -> u8 {
        self.ws();
        self.s[self.i]
    }
    fn string(&mut self) -> String {
        self.eat(b'"');
        let mut out = String::new();
        loop {
            let c = self.s[self.i];
            self.i += 1;
            match c {
                b'"' => return out,
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    out.push(match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'u' => {
                            let h = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                            self.i += 4;
                            char::from_u32(u32::from_str_radix(h, 16).unwrap()).unwrap()
                        }
                        other => other as char,
                    });
                }
                _ => {
                    // Copy a whole UTF-8 sequence.
                    let start = self.i - 1;
                    let len = match c {
                        0..=0x7F => 1,
                        0xC0..=0xDF => 2,
                        0xE0..=0xEF => 3,
                        _ => 4,
                    };
                    self.i = start + len;
                    out.push_str(std::str::from_utf8(&self.s[start..self.i]).unwrap());
                }
            }
        }
    }
    fn value(&mut self) -> Json {
        match self.peek() {
            b'"' => Json::Str(self.string()),
            b'[' => {
                self.eat(b'[');
                let mut v = Vec::new();
                if self.peek() == b']' {
                    self.eat(b']');
                    return Json::Arr(v);
                }
                loop {
                    v.push(self.value());
                    if self.peek() == b',' {
                        self.eat(b',');
                    } else {
                        self.eat(b']');
                        return Json::Arr(v);
                    }
                }
            }
            b'{' => {
                self.eat(b'{');
                let mut v = Vec::new();
                if self.peek() == b'}' {
                    self.eat(b'}');
                    return Json::Obj(v);
                }
                loop {
                    let k = self.string();
                    self.eat(b':');
                    v.push((k, self.value()));
                    if self.peek() == b',' {
                        self.eat(b',');
                    } else {
                        self.eat(b'}');
                        return Json::Obj(v);
                    }
                }
            }
            b't' | b'f' | b'n' => {
                for (w, j) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    if self.s[self.i..].starts_with(w.as_bytes()) {
                        self.i += w.len();
                        return j;
                    }
                }
                panic!("JSON: bad literal at {}", self.i)
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                Json::Num(t.parse().unwrap())
            }
        }
    }
}

fn parse_json(text: &str) -> Json {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value();
    p.ws();
    assert_eq!(p.i, text.len(), "JSON: trailing data");
    v
}

#[test]
fn json_parser_works() {
    assert_eq!(
        parse_json(r#" [ {"a": "x\"y", "b": [1, true, null]} ] "#),
        Json::Arr(vec![Json::Obj(vec![
            ("a".into(), Json::Str("x\"y".into())),
            (
                "b".into(),
                Json::Arr(vec![Json::Num(1.0), Json::Bool(true), Json::Null])
            ),
        ])])
    );
}

/// (type, versions) of a JSON file name, e.g. `iob-slow-v3.json`.
fn file_kind(name: &str) -> (PmuType, &'static [Version]) {
    let (stem, vs): (&str, &'static [Version]) = if let Some(s) = name.strip_suffix("-v1v2.json") {
        (s, &[Version::V1, Version::V2])
    } else if let Some(s) = name.strip_suffix("-v3.json") {
        (s, &[Version::V3])
    } else {
        panic!("unexpected file {name}")
    };
    let t = match stem {
        "l3c" => PmuType::L3c,
        "iob" => PmuType::Iob,
        "iob-slow" => PmuType::IobSlow,
        "mcb" => PmuType::Mcb,
        "mc" => PmuType::Mc,
        _ => panic!("unexpected type in {name}"),
    };
    (t, vs)
}

/// Every JSON event: (type, versions, name, code).
fn json_events() -> Vec<(PmuType, &'static [Version], String, u16)> {
    let dir = top().join("drivers/perf/xgene/events");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with("metrics-"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9, "{names:?}");
    let mut out = Vec::new();
    for name in names {
        let (t, vs) = file_kind(&name);
        let Json::Arr(entries) = parse_json(&std::fs::read_to_string(dir.join(&name)).unwrap())
        else {
            panic!("{name}: not an array")
        };
        for e in entries {
            let Json::Obj(kv) = e else {
                panic!("{name}: not an object")
            };
            let get = |k: &str| match kv.iter().find(|(key, _)| key == k) {
                Some((_, Json::Str(s))) => s.clone(),
                _ => panic!("{name}: no string {k}"),
            };
            // perf's system event schema: the PMU name less its number,
            // and the identifiers (`identifiers` below) of the file's
            // generations as a regular expression.
            let unit = match t {
                PmuType::L3c => "l3c",
                PmuType::Iob => "iob",
                PmuType::IobSlow => "iob_slow",
                PmuType::Mcb => "mcb",
                PmuType::Mc => "mc",
            };
            assert_eq!(get("Unit"), unit, "{name}");
            let gens = if vs.len() == 2 { "[12]" } else { "3" };
            assert_eq!(get("Compat"), format!("apm_xgene{gens}_{unit}"), "{name}");
            let code = get("ConfigCode");
            let code = u16::from_str_radix(code.strip_prefix("0x").unwrap(), 16).unwrap();
            out.push((t, vs, get("EventName"), code));
        }
    }
    out
}

#[test]
fn every_json_event_round_trips() {
    let all = json_events();
    for (t, vs, name, code) in &all {
        for &v in *vs {
            assert_eq!(
                events::code_of(*t, v, name),
                Some(*code),
                "{t:?} {v:?} {name}"
            );
            assert_eq!(
                events::name_of(*t, v, *code),
                Some(name.as_str()),
                "{t:?} {v:?} {code:#x}"
            );
            assert_eq!(
                config::decode(*t, v, u64::from(*code), 0).map(|p| p.evtype),
                Ok(u32::from(*code)),
                "{t:?} {v:?} {name} passes validation"
            );
        }
    }
    // And nothing in the tables that the JSON does not have.
    for v in ALL_V {
        for t in ALL_T {
            let n = all
                .iter()
                .filter(|(jt, vs, _, _)| *jt == t && vs.contains(&v))
                .count();
            assert_eq!(events::events(t, v).len(), n, "{t:?} {v:?}");
        }
    }
    assert_eq!(all.len(), 14 + 13 + 6 + 29 + 39 + 39 + 9 + 36 + 45);
}

#[test]
fn generator_is_deterministic_and_path_independent() {
    let run = |mode: &str| {
        let o = Command::new("python3")
            .arg(top().join("scripts/xgene_events.py"))
            .arg(mode)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    for mode in ["rust", "attrs", "rst"] {
        let a = run(mode);
        assert_eq!(a, run(mode), "{mode}");
        assert!(!a.contains(top().canonicalize().unwrap().to_str().unwrap()));
    }
    // The committed event lists are what the JSON gives.
    let doc = std::fs::read_to_string(top().join("Documentation/xgene-pmu-events.rst")).unwrap();
    assert!(
        doc == run("rst"),
        "Documentation/xgene-pmu-events.rst is stale: \
         python3 scripts/xgene_events.py rst Documentation/xgene-pmu-events.rst"
    );
}

#[test]
fn formats_and_identifiers_agree() {
    // Every child _HID and compatible maps back to its type, and no
    // identifier is given twice.
    let mut seen = Vec::new();
    for t in ALL_T {
        let b = t.block();
        for &hid in b.acpi_hids {
            assert_eq!(ids::child_type(hid), Some(t));
            seen.push(hid);
        }
        if let Some(c) = b.dt_compatible {
            assert_eq!(ids::dt_child_type(|x| x == c), Some(t));
            seen.push(c);
        }
    }
    seen.extend(ids::OF_DEVICES.map(|(c, _)| c));
    seen.extend(ids::ACPI_DEVICES.map(|(h, _)| h));
    let n = seen.len();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), n, "an identifier is given twice");
    assert_eq!(n, 2 + 3 + 9 + 4);
    for v in ALL_V {
        for t in ALL_T {
            assert_eq!(
                events::formats(t, v).is_empty(),
                !t.exists_on(v),
                "{t:?} {v:?}"
            );
            for f in events::formats(t, v) {
                assert!(f.name.starts_with(t.prefix()), "{}", f.name);
            }
        }
    }
}

#[test]
fn identifiers() {
    // NOTES.md: "apm_xgene<generation>_<sysfs prefix>".
    let gens = [(Version::V1, "1"), (Version::V2, "2"), (Version::V3, "3")];
    let types = [
        (PmuType::L3c, "l3c"),
        (PmuType::Iob, "iob"),
        (PmuType::IobSlow, "iob_slow"),
        (PmuType::Mcb, "mcb"),
        (PmuType::Mc, "mc"),
    ];
    for (v, g) in gens {
        for (t, p) in types {
            assert_eq!(
                events::Identifier(v, t).to_string(),
                format!("apm_xgene{g}_{p}")
            );
        }
    }
}
