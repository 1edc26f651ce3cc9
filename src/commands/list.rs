//! `destbench list`: every test variant of the full profile and what it does.

use crate::error::Result;
use crate::report;
use crate::settings;
use crate::workload::{self, Profile, ProfileName};

pub fn list() -> Result<String> {
    let profile = Profile::get(ProfileName::Full);
    let options = settings::suite_options(&profile, &[], &[], false);
    Ok(report::terminal::list_tests(&workload::suite(&options)))
}
