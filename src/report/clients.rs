//! The tables of a run of several clients (`cluster` in the run document): each result's
//! aggregate beside the clients' own rates, and the scaling table of `--clients`. Shared by the
//! terminal report and the HTML report (`html::clients`).

use crate::results::{Aggregate, ClusterInfo};

use crate::report::table::Table;

/// One line on who took part.
pub fn summary(info: &ClusterInfo) -> String {
    format!(
        "{} clients on {} ({}); clock offsets to rank 0 at most {:.1} µs{}",
        info.clients,
        info.hosts.join(", "),
        if info.mpi_library.is_empty() {
            "MPI"
        } else {
            &info.mpi_library
        },
        info.worst_clock_offset_s * 1e6,
        if info.stonewall {
            "; stonewalled: every client stopped when the first finished its work, and what each had done counts"
        } else {
            ""
        }
    )
}

/// Each result: the aggregate (all bytes over latest end − earliest start) and the per-client
/// median, min, max and spread.
pub fn aggregates_table(aggregates: &[Aggregate]) -> Table {
    let mut table = Table::text_then_figures(
        &["test", "variant", "unit"],
        &["aggregate", "per client", "min", "max", "spread"],
    );
    for a in aggregates {
        table.push([
            a.test.to_string(),
            a.variant.clone(),
            a.unit.as_str().to_string(),
            format!("{:.2}", a.aggregate),
            format!("{:.2}", a.per_client.median),
            format!("{:.2}", a.per_client.min),
            format!("{:.2}", a.per_client.max),
            format!("{:.0}%", a.per_client.spread * 100.0),
        ]);
    }
    table
}

/// `--clients`: every result's aggregate and per-client median against the number of clients.
pub fn scaling_table(info: &ClusterInfo) -> Table {
    let mut table = Table::text_then_figures(
        &["test", "variant", "unit"],
        &["clients", "aggregate", "per client", "min", "max"],
    );
    for point in &info.scaling {
        for a in &point.aggregates {
            table.push([
                a.test.to_string(),
                a.variant.clone(),
                a.unit.as_str().to_string(),
                point.clients.to_string(),
                format!("{:.2}", a.aggregate),
                format!("{:.2}", a.per_client.median),
                format!("{:.2}", a.per_client.min),
                format!("{:.2}", a.per_client.max),
            ]);
        }
    }
    table
}

/// The whole section for the terminal; empty for one client.
pub fn text(info: Option<&ClusterInfo>, header: &dyn Fn(&str) -> String) -> String {
    let Some(info) = info else {
        return String::new();
    };
    let mut out = format!("\n{}\n", summary(info));
    out.push_str(&aggregates_table(&info.aggregates).text(header));
    if !info.scaling.is_empty() {
        out.push_str(&format!(
            "\nscaling ({}):\n",
            crate::settings::defs::CLIENTS
        ));
        out.push_str(&scaling_table(info).text(header));
    }
    out
}
