//! The run's time: the budget shared out over the variants (`schedule`, by what each is planned
//! to cost: `costs`), the work fixed in bytes sized to fit it (`sizing`), what feeds the one
//! ETA every display reads (`tracking`, for `runner::eta`), what the run says of its budget
//! (`budget`), and the time account the run document keeps (`account`).

pub(in crate::runner) mod account;
pub(in crate::runner) mod budget;
pub(in crate::runner) mod costs;
pub(in crate::runner) mod schedule;
pub(in crate::runner) mod sizing;
pub(in crate::runner) mod tracking;
