//! Profiles: how long and how often the suite runs. Sizes here are the defaults `--size` and
//! `--runs` override.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::TestId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileName {
    Quick,
    Backup,
    Full,
}

impl fmt::Display for ProfileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProfileName::Quick => "quick",
            ProfileName::Backup => "backup",
            ProfileName::Full => "full",
        })
    }
}

impl FromStr for ProfileName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "quick" => Ok(ProfileName::Quick),
            "backup" => Ok(ProfileName::Backup),
            "full" => Ok(ProfileName::Full),
            _ => Err(format!(
                "unknown profile '{s}' (known: quick, backup, full)"
            )),
        }
    }
}

/// The parameters a profile fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub name: ProfileName,
    /// Repetitions of every test variant.
    pub runs: usize,
    /// How long each block-test repetition runs.
    pub block_duration: Duration,
    /// Size of the shared file the block tests work on.
    pub file_size: u64,
    /// Width of one point of the throughput time series.
    pub series_interval: Duration,
    /// The tests run when `--tests` is not given.
    pub tests: &'static [TestId],
}

impl Profile {
    pub fn get(name: ProfileName) -> Profile {
        match name {
            // About 15 s on an ordinary SSD.
            ProfileName::Quick => Profile {
                name,
                runs: 2,
                block_duration: Duration::from_millis(500),
                file_size: 64 << 20,
                series_interval: Duration::from_millis(100),
                tests: &TestId::ALL,
            },
            // At most two minutes on an ordinary SSD.
            ProfileName::Backup => Profile {
                name,
                runs: 3,
                block_duration: Duration::from_secs(2),
                file_size: 512 << 20,
                series_interval: Duration::from_millis(250),
                tests: &TestId::ALL,
            },
            ProfileName::Full => Profile {
                name,
                runs: 5,
                block_duration: Duration::from_secs(5),
                file_size: 1 << 30,
                series_interval: Duration::from_secs(1),
                tests: &TestId::ALL,
            },
        }
    }
}
