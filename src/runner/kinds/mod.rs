//! The one place the runner turns a workload into the test that plans and runs it.

pub(in crate::runner) mod block;
pub(in crate::runner) mod files;
pub(in crate::runner) mod meta;
pub(in crate::runner) mod order;
pub(in crate::runner) mod sets;
pub(in crate::runner) mod space;
pub(in crate::runner) mod stream;
pub(in crate::runner) mod sustained;
pub(in crate::runner) mod test;
pub(in crate::runner) mod throttled;
pub(in crate::runner) mod tm_backup;
pub(in crate::runner) mod tm_beside;

use crate::workload::Workload;

use crate::runner::kinds::test::Test;

/// The test that runs `workload`: the one place the runner turns a workload into its test.
pub(in crate::runner) fn test_for(workload: &Workload) -> Box<dyn Test> {
    match workload.clone() {
        Workload::Block {
            direction,
            pattern,
            block,
            depth,
        } => Box::new(block::BlockTest {
            direction,
            pattern,
            block,
            depth,
        }),
        Workload::WholeFiles {
            direction,
            sizes,
            block,
        } => Box::new(files::WholeFilesTest {
            direction,
            sizes,
            block,
        }),
        Workload::ManyFiles { count, size } => Box::new(files::ManyFilesTest { count, size }),
        Workload::FileSet { op, set, threads } => Box::new(sets::FileSetTest {
            job: sets::FileSetJob { op, set, threads },
            prepared: None,
        }),
        Workload::Meta { op, count } => Box::new(meta::MetaTest { op, count }),
        Workload::Sustained { block, depth } => Box::new(sustained::SustainedTest { block, depth }),
        Workload::Throttled { block } => Box::new(throttled::ThrottledTest { block }),
        Workload::TmBackup => Box::new(tm_backup::TmBackupTest),
    }
}
