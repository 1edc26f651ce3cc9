//! `destbench list`: every test variant of the full profile, the profiles that run it, and what
//! it does.

use crate::engine::EngineChoice;
use crate::error::Result;
use crate::report;
use crate::settings;
use crate::workload::{self, Profile, ProfileName};

pub fn list() -> Result<String> {
    let suite_of = |name: ProfileName| {
        let profile = Profile::get(name);
        let options = settings::suite_options(&profile, &[], &[], false, EngineChoice::Auto);
        let variants: Vec<_> = workload::suite(&options)
            .into_iter()
            .filter(|v| profile.tests.contains(&v.test))
            .collect();
        (name, variants)
    };
    let profiles: Vec<_> = ProfileName::ALL.into_iter().map(suite_of).collect();
    let full = Profile::get(ProfileName::Full);
    let all = workload::suite(&settings::suite_options(
        &full,
        &[],
        &[],
        false,
        EngineChoice::Auto,
    ));
    let rows: Vec<_> = all
        .iter()
        .map(|v| {
            let runs_it: Vec<String> = profiles
                .iter()
                .filter(|(_, vs)| vs.iter().any(|p| p.test == v.test && p.name == v.name))
                .map(|(name, _)| name.to_string())
                .collect();
            (v, runs_it)
        })
        .collect();
    Ok(report::terminal::list_tests(&rows))
}
