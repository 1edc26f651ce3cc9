//! The `null` tree engine: a tree kept in memory, fixed costs on a virtual clock.
//!
//! The tree is shared by every instance of one run (a copy made by one test is what the restore
//! and delete tests find), and holds names and sizes only. Costs, from [`NullTiming`]:
//! - a metadata operation (mkdir, rmdir, create, open, stat, unlink, rename, symlink,
//!   read_link): `meta_latency`;
//! - moving data (`copy_in`, `read`): `io_latency` per started [`CHUNK`];
//! - `fsync`, `syncfs`, a durable directory: `sync_latency`;
//! - opening a directory, listing it, close, setting times and modes, eviction: free.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{CopyError, Dir, Entry, EntryKind, EntryStat, Root, TreeEngine};
use crate::engine::{EngineKind, FileId, NullTiming};
use crate::platform::HandleRef;

/// The data unit the null engine charges `io_latency` for (the copy and read buffer size of the
/// real engines).
pub const CHUNK: u64 = 1 << 20;

enum Node {
    Dir(BTreeMap<OsString, usize>),
    File(u64),
    Symlink(OsString),
}

/// The tree of a `null` run: nodes by number, roots by the real path they stand for, and the
/// space left when the tree was given a capacity (a full destination, for tests of that path).
#[derive(Default)]
pub struct VirtualTree {
    nodes: Vec<Option<Node>>,
    roots: HashMap<PathBuf, usize>,
    free: Option<u64>,
}

fn not_found() -> io::Error {
    io::ErrorKind::NotFound.into()
}

impl VirtualTree {
    /// A tree that holds at most `bytes` of file data; writing more fails with `ENOSPC`.
    #[cfg(all(test, unix))]
    pub fn with_capacity(bytes: u64) -> Self {
        VirtualTree {
            free: Some(bytes),
            ..Self::default()
        }
    }

    /// Takes `bytes` of the space left, if the tree has a capacity.
    fn allocate(&mut self, bytes: u64) -> io::Result<()> {
        match &mut self.free {
            Some(free) if *free < bytes => Err(io::Error::from_raw_os_error(libc::ENOSPC)),
            Some(free) => {
                *free -= bytes;
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn add(&mut self, node: Node) -> usize {
        self.nodes.push(Some(node));
        self.nodes.len() - 1
    }

    fn children(&mut self, dir: usize) -> io::Result<&mut BTreeMap<OsString, usize>> {
        match self.nodes.get_mut(dir).and_then(Option::as_mut) {
            Some(Node::Dir(children)) => Ok(children),
            Some(_) => Err(io::ErrorKind::NotADirectory.into()),
            None => Err(not_found()),
        }
    }

    fn lookup(&mut self, dir: usize, name: &OsStr) -> io::Result<usize> {
        self.children(dir)?.get(name).copied().ok_or_else(not_found)
    }

    fn node(&self, id: usize) -> io::Result<&Node> {
        self.nodes
            .get(id)
            .and_then(Option::as_ref)
            .ok_or_else(not_found)
    }

    /// Adds `node` as `name` in `dir`; fails if the name is taken.
    fn insert(&mut self, dir: usize, name: &OsStr, node: Node) -> io::Result<usize> {
        if self.children(dir)?.contains_key(name) {
            return Err(io::ErrorKind::AlreadyExists.into());
        }
        let id = self.add(node);
        self.children(dir)?.insert(name.to_os_string(), id);
        Ok(id)
    }

    /// Removes `name` from `dir`: an empty directory when `dir_wanted`, anything else otherwise.
    fn remove(&mut self, dir: usize, name: &OsStr, dir_wanted: bool) -> io::Result<()> {
        let id = self.lookup(dir, name)?;
        match (self.node(id)?, dir_wanted) {
            (Node::Dir(children), true) if !children.is_empty() => {
                return Err(io::ErrorKind::DirectoryNotEmpty.into());
            }
            (Node::Dir(_), false) => return Err(io::ErrorKind::IsADirectory.into()),
            (Node::File(_) | Node::Symlink(_), true) => {
                return Err(io::ErrorKind::NotADirectory.into());
            }
            _ => {}
        }
        self.children(dir)?.remove(name);
        if let (Some(Node::File(size)), Some(free)) = (self.nodes[id].take(), self.free.as_mut()) {
            *free += size;
        }
        Ok(())
    }
}

/// A file open in the null engine: its node and read position.
struct Open {
    node: usize,
    position: u64,
}

pub struct NullTree {
    timing: NullTiming,
    clock: Duration,
    tree: Arc<Mutex<VirtualTree>>,
    files: Vec<Option<Open>>,
}

impl NullTree {
    pub fn new(timing: NullTiming, tree: Arc<Mutex<VirtualTree>>) -> Self {
        NullTree {
            timing,
            clock: Duration::ZERO,
            tree,
            files: Vec::new(),
        }
    }

    /// Charges `cost` to the virtual clock and works on the tree.
    fn with_tree<T>(
        &mut self,
        cost: Duration,
        work: impl FnOnce(&mut VirtualTree) -> io::Result<T>,
    ) -> io::Result<T> {
        self.clock += cost;
        let mut tree = self
            .tree
            .lock()
            .map_err(|_| io::Error::other("null tree poisoned"))?;
        work(&mut tree)
    }

    fn meta<T>(&mut self, work: impl FnOnce(&mut VirtualTree) -> io::Result<T>) -> io::Result<T> {
        self.with_tree(self.timing.meta_latency, work)
    }

    fn data_cost(&self, bytes: u64) -> Duration {
        self.timing.io_latency * bytes.div_ceil(CHUNK) as u32
    }

    fn open_node(&mut self, node: usize) -> FileId {
        let open = Some(Open { node, position: 0 });
        match self.files.iter().position(Option::is_none) {
            Some(free) => {
                self.files[free] = open;
                FileId(free)
            }
            None => {
                self.files.push(open);
                FileId(self.files.len() - 1)
            }
        }
    }

    fn file(&mut self, file: FileId) -> io::Result<&mut Open> {
        self.files
            .get_mut(file.0)
            .and_then(Option::as_mut)
            .ok_or_else(|| io::Error::other(format!("file {} is not open", file.0)))
    }
}

fn node_of(dir: &Dir) -> io::Result<usize> {
    match dir {
        Dir::Virtual(node) => Ok(*node),
        Dir::Real(_) => Err(io::Error::other(
            "a real directory used with the null engine",
        )),
    }
}

impl TreeEngine for NullTree {
    fn kind(&self) -> EngineKind {
        EngineKind::Null
    }

    fn now(&self) -> Duration {
        self.clock
    }

    fn open_root(&mut self, root: &Root) -> io::Result<Dir> {
        let path = &root.path();
        // A path below a root already known is that root's directory (the run makes its
        // directories in the scratch, then opens them by path); any other path is a new root.
        let known = {
            let tree = self
                .tree
                .lock()
                .map_err(|_| io::Error::other("null tree poisoned"))?;
            path.ancestors().find_map(|a| {
                let rel = path.strip_prefix(a).ok()?;
                tree.roots.get(a).map(|&node| (node, rel.to_path_buf()))
            })
        };
        if let Some((node, rel)) = known {
            return self.open_path(&Dir::Virtual(node), &rel);
        }
        let mut tree = self
            .tree
            .lock()
            .map_err(|_| io::Error::other("null tree poisoned"))?;
        let node = tree.add(Node::Dir(BTreeMap::new()));
        tree.roots.insert(path.to_path_buf(), node);
        Ok(Dir::Virtual(node))
    }

    fn open_dir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        let parent = node_of(parent)?;
        self.with_tree(Duration::ZERO, |tree| {
            let id = tree.lookup(parent, name)?;
            match tree.node(id)? {
                Node::Dir(_) => Ok(Dir::Virtual(id)),
                _ => Err(io::ErrorKind::NotADirectory.into()),
            }
        })
    }

    fn mkdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        let parent = node_of(parent)?;
        self.meta(|tree| tree.insert(parent, name, Node::Dir(BTreeMap::new())))
            .map(Dir::Virtual)
    }

    fn rmdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<()> {
        let parent = node_of(parent)?;
        self.meta(|tree| tree.remove(parent, name, true))
    }

    fn list(&mut self, dir: &Dir) -> io::Result<Vec<Entry>> {
        let dir = node_of(dir)?;
        self.with_tree(Duration::ZERO, |tree| {
            let children: Vec<(OsString, usize)> = tree
                .children(dir)?
                .iter()
                .map(|(name, &id)| (name.clone(), id))
                .collect();
            children
                .into_iter()
                .map(|(name, id)| {
                    let kind = match tree.node(id)? {
                        Node::Dir(_) => EntryKind::Dir,
                        Node::File(_) => EntryKind::File,
                        Node::Symlink(_) => EntryKind::Symlink,
                    };
                    Ok(Entry { name, kind })
                })
                .collect()
        })
    }

    fn read_link(&mut self, dir: &Dir, name: &OsStr) -> io::Result<OsString> {
        let dir = node_of(dir)?;
        self.meta(|tree| {
            let id = tree.lookup(dir, name)?;
            match tree.node(id)? {
                Node::Symlink(target) => Ok(target.clone()),
                _ => Err(io::ErrorKind::InvalidInput.into()),
            }
        })
    }

    fn symlink(&mut self, dir: &Dir, name: &OsStr, target: &OsStr) -> io::Result<()> {
        let dir = node_of(dir)?;
        self.meta(|tree| tree.insert(dir, name, Node::Symlink(target.to_os_string())))
            .map(drop)
    }

    fn create(&mut self, dir: &Dir, name: &OsStr, _mode: u32) -> io::Result<FileId> {
        let dir = node_of(dir)?;
        let node = self.meta(|tree| tree.insert(dir, name, Node::File(0)))?;
        Ok(self.open_node(node))
    }

    fn open(&mut self, dir: &Dir, name: &OsStr) -> io::Result<FileId> {
        let dir = node_of(dir)?;
        let node = self.meta(|tree| {
            let id = tree.lookup(dir, name)?;
            match tree.node(id)? {
                Node::File(_) => Ok(id),
                Node::Dir(_) => Err(io::ErrorKind::IsADirectory.into()),
                // O_NOFOLLOW on a symlink.
                Node::Symlink(_) => Err(io::Error::from_raw_os_error(libc::ELOOP)),
            }
        })?;
        Ok(self.open_node(node))
    }

    fn stat(&mut self, dir: &Dir, name: &OsStr) -> io::Result<EntryStat> {
        let dir = node_of(dir)?;
        self.meta(|tree| {
            let id = tree.lookup(dir, name)?;
            let (kind, size) = match tree.node(id)? {
                Node::Dir(_) => (EntryKind::Dir, 0),
                Node::File(size) => (EntryKind::File, *size),
                Node::Symlink(target) => (EntryKind::Symlink, target.len() as u64),
            };
            Ok(EntryStat {
                kind,
                size,
                mode: 0o644,
                accessed: (0, 0),
                modified: (0, 0),
            })
        })
    }

    fn copy_in(
        &mut self,
        file: FileId,
        _source: HandleRef<'_>,
        len: u64,
    ) -> Result<u64, CopyError> {
        let node = self.file(file).map_err(CopyError::Destination)?.node;
        let cost = self.data_cost(len);
        self.with_tree(cost, |tree| {
            tree.allocate(len)?;
            match tree.nodes.get_mut(node).and_then(Option::as_mut) {
                Some(Node::File(size)) => {
                    *size += len;
                    Ok(len)
                }
                _ => Err(not_found()),
            }
        })
        .map_err(CopyError::Destination)
    }

    fn read(&mut self, file: FileId, buf: &mut [u8]) -> io::Result<usize> {
        let Open { node, position } = *self.file(file)?;
        let size = self.with_tree(Duration::ZERO, |tree| match tree.node(node)? {
            Node::File(size) => Ok(*size),
            _ => Err(not_found()),
        })?;
        let n = (size.saturating_sub(position)).min(buf.len() as u64);
        self.clock += self.data_cost(n);
        self.file(file)?.position += n;
        Ok(n as usize)
    }

    fn set_meta(&mut self, file: FileId, _meta: &EntryStat, _mode: bool) -> io::Result<()> {
        self.file(file).map(drop)
    }

    fn set_dir_meta(&mut self, dir: &Dir, _meta: &EntryStat, durable: bool) -> io::Result<()> {
        node_of(dir)?;
        if durable {
            self.clock += self.timing.sync_latency;
        }
        Ok(())
    }

    fn fsync(&mut self, file: FileId) -> io::Result<()> {
        self.file(file)?;
        self.clock += self.timing.sync_latency;
        Ok(())
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.file(file)?;
        self.files[file.0] = None;
        Ok(())
    }

    fn unlink(&mut self, dir: &Dir, name: &OsStr) -> io::Result<()> {
        let dir = node_of(dir)?;
        self.meta(|tree| tree.remove(dir, name, false))
    }

    fn rename(&mut self, dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let dir = node_of(dir)?;
        self.meta(|tree| {
            let children = tree.children(dir)?;
            let id = children.remove(from).ok_or_else(not_found)?;
            children.insert(to.to_os_string(), id);
            Ok(())
        })
    }

    fn syncfs(&mut self, dir: &Dir) -> io::Result<()> {
        node_of(dir)?;
        self.clock += self.timing.sync_latency;
        Ok(())
    }

    fn evict(&mut self, file: FileId) -> io::Result<Option<f64>> {
        self.file(file)?;
        Ok(Some(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> NullTree {
        NullTree::new(NullTiming::default(), Arc::default())
    }

    #[test]
    fn a_copy_is_there_for_the_next_instance_and_costs_its_chunks() {
        let tree = Arc::new(Mutex::new(VirtualTree::default()));
        let timing = NullTiming::default();
        let mut writer = NullTree::new(timing, Arc::clone(&tree));
        let root = writer
            .open_root(&Root::virtual_at(std::path::Path::new("/scratch")))
            .unwrap();
        let dir = writer.mkdir(&root, OsStr::new("d")).unwrap();
        let file = writer.create(&dir, OsStr::new("f"), 0o644).unwrap();
        let stdin = std::io::stdin();
        let source = crate::platform::AsHandleRef::handle_ref(&stdin);
        assert_eq!(writer.copy_in(file, source, CHUNK + 1).unwrap(), CHUNK + 1);
        writer.fsync(file).unwrap();
        writer.close(file).unwrap();
        assert_eq!(
            writer.now(),
            2 * timing.meta_latency + 2 * timing.io_latency + timing.sync_latency
        );

        let mut reader = NullTree::new(timing, tree);
        let root = reader
            .open_root(&Root::virtual_at(std::path::Path::new("/scratch")))
            .unwrap();
        let dir = reader.open_dir(&root, OsStr::new("d")).unwrap();
        let names: Vec<_> = reader
            .list(&dir)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["f"]);
        let file = reader.open(&dir, OsStr::new("f")).unwrap();
        let mut buf = vec![0u8; CHUNK as usize];
        let mut total = 0;
        while let n @ 1.. = reader.read(file, &mut buf).unwrap() {
            total += n as u64;
        }
        assert_eq!(total, CHUNK + 1);
        assert!(reader.rmdir(&root, OsStr::new("d")).is_err(), "not empty");
    }

    #[test]
    fn rename_and_unlink() {
        let mut engine = engine();
        let root = engine
            .open_root(&Root::virtual_at(std::path::Path::new("/m")))
            .unwrap();
        let file = engine.create(&root, OsStr::new("a"), 0o600).unwrap();
        engine.close(file).unwrap();
        engine
            .rename(&root, OsStr::new("a"), OsStr::new("b"))
            .unwrap();
        assert_eq!(
            engine.stat(&root, OsStr::new("b")).unwrap().kind,
            EntryKind::File
        );
        assert!(engine.stat(&root, OsStr::new("a")).is_err());
        engine.unlink(&root, OsStr::new("b")).unwrap();
        assert!(engine.list(&root).unwrap().is_empty());
    }
}
