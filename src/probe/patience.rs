//! Asking many volumes at once without waiting on a dead one: a share whose server is gone can
//! hold a `stat` or a volume query in the kernel for minutes.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Asks `ask` of each item on a thread of its own and waits for the replies until `patience`
/// has passed since the first was asked; an item that has not replied by then gets None (its
/// thread stays blocked in the kernel until the item replies). In the items' order.
pub fn replies_within<T, R>(
    items: Vec<T>,
    patience: Duration,
    ask: impl Fn(&T) -> R + Clone + Send + 'static,
) -> Vec<(T, Option<R>)>
where
    T: Clone + Send + 'static,
    R: Send + 'static,
{
    let asked: Vec<_> = items
        .into_iter()
        .map(|item| {
            let (tx, rx) = mpsc::channel();
            let (mine, ask) = (item.clone(), ask.clone());
            let _ = std::thread::Builder::new()
                .name("probe-within".into())
                .spawn(move || tx.send(ask(&mine)));
            (item, rx)
        })
        .collect();
    let deadline = Instant::now() + patience;
    asked
        .into_iter()
        .map(|(item, rx)| {
            let left = deadline.saturating_duration_since(Instant::now());
            (item, rx.recv_timeout(left).ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_that_does_not_reply_in_time_gets_none_the_others_their_reply() {
        let replies = replies_within(vec![1u64, 2, 3], Duration::from_millis(300), |&n| {
            if n == 2 {
                std::thread::sleep(Duration::from_secs(3));
            }
            n * 10
        });
        assert_eq!(replies, [(1, Some(10)), (2, None), (3, Some(30))]);
    }
}
