//! `destbench import-fio FILE.json`: an fio result stored in the history as a run, so `compare`
//! and `report` can set it beside destbench's runs.

use crate::cli::ImportFioArgs;
use crate::error::{Error, Result};
use crate::results::fio;

use super::db;

pub fn import_fio(args: &ImportFioArgs) -> Result<String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| Error::io(format!("reading {}", args.file.display()), e))?;
    let run = fio::from_fio_json(&text, args.label.clone())
        .map_err(|problem| Error::Usage(format!("{}: {problem}", args.file.display())))?;
    let Some(target) = db::open_for_run(false, &args.db)? else {
        return Err(Error::Usage(
            "no history database to store the fio result in".into(),
        ));
    };
    let id = db::store_run(&target, &run)?;
    Ok(format!(
        "stored {} result(s) of {} as run {id} in {}\n",
        run.results.len(),
        args.file.display(),
        target.path().display()
    ))
}
