//! Several clients on one destination at once: destbench under MPI (`mpirun -n N destbench run
//! PATH`), one client per rank, as IOR and mdtest run. Each rank measures with the ordinary runner
//! in its own scratch directory; this module only coordinates them through the runner's
//! [`RepetitionHook`](crate::runner::RepetitionHook) (a barrier before each repetition, its window
//! after) and combines their documents on rank 0 (`aggregate`). The MPI part is behind the cargo
//! feature `mpi`; without it, what is here says so and the run is one client's.

#[cfg(any(feature = "mpi", test))]
mod aggregate;
#[cfg(feature = "mpi")]
mod mpi;

#[cfg(feature = "mpi")]
pub use aggregate::{Coordination, RankPart, combine};
#[cfg(feature = "mpi")]
pub use mpi::{Session, StepOutcome};

#[cfg(any(feature = "mpi", test))]
use crate::error::{Error, Result};
#[cfg(feature = "mpi")]
use crate::probe::Chain;
use crate::settings::defs::{CLIENTS, STONEWALL};

/// The MPI launcher this process was started by, judged by the environment it sets for its
/// ranks; None when started on its own.
pub fn launcher() -> Option<&'static str> {
    let set = |name: &str| std::env::var_os(name).is_some();
    if set("OMPI_COMM_WORLD_SIZE") {
        Some("Open MPI's mpirun")
    } else if set("PMIX_RANK") {
        Some("a PMIx launcher")
    } else if set("PMI_SIZE") || set("PMI_RANK") {
        Some("a PMI launcher (MPICH, Slurm)")
    } else {
        None
    }
}

/// The one line saying why this run is one client's although several were asked for or
/// launched; None when nothing suggests more than one.
pub fn single_client_note(feature: bool, launched: Option<&str>, asked: bool) -> Option<String> {
    match (feature, launched) {
        (false, Some(launcher)) => Some(format!(
            "started by {launcher}, but this destbench was built without the `mpi` feature: running as one client (cargo build --release --features mpi)"
        )),
        (false, None) if asked => Some(format!(
            "{CLIENTS} and {STONEWALL} need the `mpi` feature and an MPI launcher (mpirun -n N destbench run ...): running as one client"
        )),
        (true, None) => Some(
            "not started by an MPI launcher (mpirun -n N destbench run ...): running as one client"
                .into(),
        ),
        _ => None,
    }
}

/// What identifies the destination's filesystem as a client sees it: the mount's filesystem and
/// source (the device, or the server and share), not where it is mounted.
#[cfg(feature = "mpi")]
pub fn filesystem_identity(chain: Option<&Chain>) -> String {
    match chain {
        Some(chain) => {
            let label = &chain.root.label;
            label
                .split_once(" at ")
                .map_or(label.as_str(), |(what, _)| what)
                .to_string()
        }
        None => "unknown (the destination could not be probed)".into(),
    }
}

/// Refuses clients whose destinations are not the same filesystem: `ids` are (rank, host,
/// identity) in rank order.
#[cfg(any(feature = "mpi", test))]
pub fn check_same_filesystem(ids: &[(usize, String, String)]) -> Result<()> {
    let Some((_, host0, id0)) = ids.first() else {
        return Ok(());
    };
    match ids.iter().find(|(_, _, id)| id != id0) {
        None => Ok(()),
        Some((rank, host, id)) => Err(Error::Cluster(format!(
            "the clients' destinations are not one filesystem: rank 0 on {host0} sees {id0}, rank {rank} on {host} sees {id}; give every rank the same shared destination"
        ))),
    }
}

/// The scratch directory's tag for a rank: `r2-host`, the host reduced to what is safe in a name.
#[cfg(any(feature = "mpi", test))]
pub fn scratch_tag(rank: usize, host: &str) -> String {
    let host: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    format!("r{rank}-{host}")
}

/// `--clients 1,2,4`: each at least 1, at most the ranks started, in the order given.
#[cfg(any(feature = "mpi", test))]
pub fn check_client_counts(counts: &[usize], ranks: usize) -> Result<Vec<usize>> {
    if counts.is_empty() {
        return Ok(vec![ranks]);
    }
    if let Some(bad) = counts.iter().find(|&&k| k == 0 || k > ranks) {
        return Err(Error::Usage(format!(
            "{CLIENTS} {bad}: between 1 and the {ranks} ranks started (mpirun -n {bad} or more)"
        )));
    }
    Ok(counts.to_vec())
}

#[cfg(test)]
mod tests;
