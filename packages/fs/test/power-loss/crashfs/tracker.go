package main

import (
	"bytes"
	"math/rand"
	"sync"
	"syscall"
)

// change is one directory entry an operation set or removed: what a directory fsync makes
// durable, and what a power cut may lose.
type change struct {
	dir    uint64
	name   string
	target uint64 // the inode the entry now names; 0 when the operation removed the entry
}

// pendingOp is a namespace operation (create, mkdir, link, unlink, rmdir, rename) whose
// changes are not all durable yet. A directory fsync drops the changes in that directory;
// the op is forgotten once it has none left. A rename across directories is one op with two
// changes, replayed together or not at all.
type pendingOp struct {
	changes []change
}

// tracker models the disk under the mount. Inodes are the backing filesystem's inode
// numbers (the backing directory lives on tmpfs, which hands them out in increasing order
// rather than reusing them; a reuse is fatal, never silently wrong).
type tracker struct {
	mu      sync.Mutex
	root    uint64
	isDir   map[uint64]bool
	dirs    map[uint64]map[string]uint64 // durable entries of each directory
	data    map[uint64][]byte            // durable content of each file (absent = empty)
	dirty   map[uint64]bool              // files written since their last fsync
	pending []*pendingOp

	ops   int    // mutating operations since the last mount
	cutAt int    // the operation that cuts the power (0: only an explicit cut)
	cutOn string // the kind of operation the cut landed on; "" while powered
}

// newTracker takes the image as durable: a disk after a power cut is what is on it.
func newTracker(img *image) *tracker {
	return &tracker{
		root:  img.root,
		isDir: img.isDir,
		dirs:  img.dirs,
		data:  img.data,
		dirty: map[uint64]bool{},
	}
}

// powered reports EIO once the power is cut: every later operation, reads included, fails.
func (t *tracker) powered() syscall.Errno {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cutOn != "" {
		return syscall.EIO
	}
	return 0
}

// mutate runs one mutating operation under the tracker's lock, so that a cut falls between
// operations, never inside one: the operation the cut lands on fails with EIO and does nothing.
func (t *tracker) mutate(kind string, op func() syscall.Errno) syscall.Errno {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cutOn != "" {
		return syscall.EIO
	}
	t.ops++
	if t.cutAt > 0 && t.ops >= t.cutAt {
		t.cutOn = kind
		return syscall.EIO
	}
	return op()
}

// cut cuts the power now (between operations); false if it was already cut.
func (t *tracker) cut() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cutOn != "" {
		return false
	}
	t.cutOn = "idle"
	return true
}

// The recorders below are called from inside mutate, with the lock held.

func (t *tracker) created(dir uint64, name string, child uint64, isDir bool) {
	if _, known := t.isDir[child]; known {
		fatalf("inode %d was reused by the backing filesystem: put the work directory on tmpfs", child)
	}
	t.isDir[child] = isDir
	t.pending = append(t.pending, &pendingOp{changes: []change{{dir, name, child}}})
}

func (t *tracker) linked(dir uint64, name string, target uint64) {
	t.pending = append(t.pending, &pendingOp{changes: []change{{dir, name, target}}})
}

func (t *tracker) removed(dir uint64, name string) {
	t.pending = append(t.pending, &pendingOp{changes: []change{{dir, name, 0}}})
}

func (t *tracker) renamed(dir uint64, name string, newDir uint64, newName string, child uint64) {
	t.pending = append(t.pending, &pendingOp{changes: []change{{dir, name, 0}, {newDir, newName, child}}})
}

func (t *tracker) written(file uint64) { t.dirty[file] = true }

// fileSynced: fsync or fdatasync made the file's content (and size) durable.
func (t *tracker) fileSynced(file uint64, content []byte) {
	t.data[file] = content
	delete(t.dirty, file)
}

// dirSynced: a directory fsync made its current entries durable, and nothing else.
func (t *tracker) dirSynced(dir uint64, entries map[string]uint64) {
	t.dirs[dir] = entries
	kept := t.pending[:0]
	for _, op := range t.pending {
		rest := op.changes[:0]
		for _, c := range op.changes {
			if c.dir != dir {
				rest = append(rest, c)
			}
		}
		op.changes = rest
		if len(rest) > 0 {
			kept = append(kept, op)
		}
	}
	t.pending = kept
}

// survivorStats says what a cut dropped and kept, for the trial's log.
type survivorStats struct {
	CutOn      string `json:"cutOn"`
	Ops        int    `json:"ops"`
	Pending    int    `json:"pending"`
	KeptOps    int    `json:"keptOps"`
	DirtyFiles int    `json:"dirtyFiles"`
	KeptWrites int    `json:"keptWrites"`
	TornWrites int    `json:"tornWrites"`
}

// tornLength is where a torn write of `latest` ends, drawn at `cut`: never inside what an
// fsync made durable when the file only grew since (appends do not unwrite synced bytes; a
// file rewritten in place may tear anywhere). The draw is the same either way, so a seed
// picks the same fates for every later file.
func tornLength(cut int, durable, latest []byte) int {
	if bytes.HasPrefix(latest, durable) && cut < len(durable) {
		return len(durable)
	}
	return cut
}

// survivor is what the disk holds after the cut. In "drop" mode only what was synced;
// in "subset" mode also a seeded random subset of the unsynced operations, replayed in
// order (each one whole), and for each file written since its last fsync either its
// durable content, its last written content, or a torn prefix of the latter.
func (t *tracker) survivor(mode string, seed int64, live func(file uint64) ([]byte, bool)) (*image, survivorStats) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rng := rand.New(rand.NewSource(seed))
	img := &image{root: t.root, isDir: t.isDir, dirs: map[uint64]map[string]uint64{}, data: map[uint64][]byte{}}
	for dir, entries := range t.dirs {
		img.dirs[dir] = copyEntries(entries)
	}
	for file, content := range t.data {
		img.data[file] = content
	}
	stats := survivorStats{CutOn: t.cutOn, Ops: t.ops, Pending: len(t.pending), DirtyFiles: len(t.dirty)}
	if mode == "subset" {
		for _, op := range t.pending {
			if rng.Intn(2) == 0 {
				continue
			}
			stats.KeptOps++
			for _, c := range op.changes {
				entries := img.dirs[c.dir]
				if entries == nil {
					entries = map[string]uint64{}
					img.dirs[c.dir] = entries
				}
				if c.target == 0 {
					delete(entries, c.name)
				} else {
					entries[c.name] = c.target
				}
			}
		}
		for _, file := range sortedKeys(t.dirty) {
			content, ok := live(file)
			if !ok {
				continue
			}
			switch rng.Intn(3) {
			case 1:
				img.data[file] = content
				stats.KeptWrites++
			case 2:
				img.data[file] = content[:tornLength(rng.Intn(len(content)+1), img.data[file], content)]
				stats.TornWrites++
			}
		}
	}
	return img, stats
}

func copyEntries(entries map[string]uint64) map[string]uint64 {
	copied := make(map[string]uint64, len(entries))
	for name, ino := range entries {
		copied[name] = ino
	}
	return copied
}
