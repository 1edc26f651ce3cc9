//! `--tests`: a test id, optionally with one variant, picked out of the suite.

use std::str::FromStr;
use std::sync::OnceLock;

use super::{CopyProgram, SetKind, SetName, SuiteOptions, TestId, Variant, Workload, suite};

/// A `--tests` entry: a test id, optionally with one variant (`seq-read:SEQ1M-Q8T1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestSelector {
    pub test: TestId,
    pub variant: Option<String>,
}

impl FromStr for TestSelector {
    type Err = String;
    /// Checks the test id; whether the variant exists depends on the other options (threads,
    /// sets) and is checked by `select`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (test, variant) = match s.split_once(':') {
            Some((t, v)) => (t, Some(v.to_string())),
            None => (s, None),
        };
        let test: TestId = test.trim().parse()?;
        Ok(TestSelector { test, variant })
    }
}

/// The variants of `suite` picked by `selectors` (all of `default_tests` when empty), in suite
/// order; an error names a selected variant that does not exist.
pub fn select(
    suite: Vec<Variant>,
    selectors: &[TestSelector],
    default_tests: &[TestId],
) -> Result<Vec<Variant>, String> {
    for selector in selectors {
        if let Some(name) = &selector.variant
            && !suite
                .iter()
                .any(|v| v.test == selector.test && v.name.eq_ignore_ascii_case(name))
        {
            let known: Vec<&str> = suite
                .iter()
                .filter(|v| v.test == selector.test)
                .map(|v| v.name.as_str())
                .collect();
            return Err(format!(
                "test '{}' has no variant '{}' (known: {})",
                selector.test,
                name.escape_debug(),
                known.join(", ")
            ));
        }
    }
    Ok(suite
        .into_iter()
        .filter(|v| {
            if selectors.is_empty() {
                default_tests.contains(&v.test)
            } else {
                selectors.iter().any(|s| {
                    s.test == v.test
                        && s.variant
                            .as_deref()
                            .is_none_or(|name| name.eq_ignore_ascii_case(&v.name))
                })
            }
        })
        .collect())
}

/// The workload of the variant `test` calls `name` in any suite this version can run (every
/// set, 1-256 threads): how a document written before results recorded their workload, or a
/// name a user typed, is read as data. Metadata counts are not in a name: they read as 0.
pub fn known_workload(test: TestId, name: &str) -> Option<Workload> {
    static EVERY: OnceLock<Vec<Variant>> = OnceLock::new();
    let every = EVERY.get_or_init(|| {
        let mut sets: Vec<SetName> = SetKind::ALL.into_iter().map(SetName::Generated).collect();
        sets.push(SetName::Source);
        suite(&SuiteOptions {
            sets,
            threads: (1..=256).collect(),
            meta_files: 0,
            programs: vec![CopyProgram::Cp, CopyProgram::Rsync],
        })
    });
    every
        .iter()
        .find(|v| v.test == test && v.name == name)
        .map(|v| v.workload.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::suite::{suite, test_options};

    #[test]
    fn selectors_parse_and_select() {
        let pick = |list: &[&str]| {
            let selectors: Vec<TestSelector> = list.iter().map(|s| s.parse().unwrap()).collect();
            select(suite(&test_options()), &selectors, &[])
        };
        let picked = pick(&["seq-read:seq1m-q8t1"]).unwrap();
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].name, "SEQ1M-Q8T1");
        assert_eq!(pick(&["tm-check"]).unwrap().len(), 2);
        assert_eq!(pick(&["meta"]).unwrap().len(), 4);
        assert!(
            "nope"
                .parse::<TestSelector>()
                .unwrap_err()
                .contains("unknown test 'nope'")
        );
        assert!(
            pick(&["seq-read:XYZ"])
                .unwrap_err()
                .contains("no variant 'XYZ'")
        );
        assert!(
            pick(&["files-copy:small-3t-cache-on"])
                .unwrap_err()
                .contains("small-1t-cache-on")
        );
    }
}
