//! Windows: the chain of a destination from the volume's and the disks' queries, or for a
//! mapped drive or UNC path the server, the SMB dialect and the interface routed to it; and the
//! drives worth testing. Decoding, building and choosing are pure (`decode.rs`, `chain.rs`,
//! `volumes.rs`) and tested on every system against fixtures of the real structures; only
//! `live.rs` calls Windows.

pub mod chain;
pub mod decode;
#[cfg(windows)]
mod live;
#[cfg(test)]
pub(super) mod tests;
mod volumes;

/// The roots of the drives worth testing.
#[cfg(windows)]
pub fn volumes() -> Vec<std::path::PathBuf> {
    volumes::worth_offering(&live::drives())
}

#[cfg(windows)]
pub fn probe(
    path: &std::path::Path,
    declared: Option<&super::DeclaredLink>,
) -> crate::error::Result<super::Chain> {
    let volume = live::volume(path).map_err(|e| crate::error::Error::Destination {
        path: path.to_path_buf(),
        problem: e.to_string(),
    })?;
    let mut chain = chain::chain(&volume);
    if let Some(d) = declared {
        d.declare(&mut chain);
    }
    Ok(chain)
}
