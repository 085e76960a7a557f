package main

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// image is a directory tree by inode: what a disk holds. Files named from several
// directories (hard links) are one inode.
type image struct {
	root  uint64
	isDir map[uint64]bool
	dirs  map[uint64]map[string]uint64
	data  map[uint64][]byte
}

func inodeOf(path string) (uint64, bool, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, false, err
	}
	return st.Ino, st.Mode&syscall.S_IFMT == syscall.S_IFDIR, nil
}

// entriesOf reads a directory's entries with their inodes.
func entriesOf(dir string) (map[string]uint64, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	entries := make(map[string]uint64, len(names))
	for _, entry := range names {
		ino, _, err := inodeOf(filepath.Join(dir, entry.Name()))
		if err != nil {
			return nil, err
		}
		entries[entry.Name()] = ino
	}
	return entries, nil
}

// scanImage reads a whole tree (directories and regular files only) into an image.
func scanImage(root string) (*image, error) {
	rootIno, _, err := inodeOf(root)
	if err != nil {
		return nil, err
	}
	img := &image{root: rootIno, isDir: map[uint64]bool{rootIno: true}, dirs: map[uint64]map[string]uint64{}, data: map[uint64][]byte{}}
	var walk func(dir string, ino uint64) error
	walk = func(dir string, ino uint64) error {
		entries, err := entriesOf(dir)
		if err != nil {
			return err
		}
		img.dirs[ino] = entries
		for name, child := range entries {
			path := filepath.Join(dir, name)
			_, isDir, err := inodeOf(path)
			if err != nil {
				return err
			}
			if isDir {
				img.isDir[child] = true
				if err := walk(path, child); err != nil {
					return err
				}
			} else if _, seen := img.isDir[child]; !seen {
				img.isDir[child] = false
				if img.data[child], err = os.ReadFile(path); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return img, walk(root, rootIno)
}

// livePaths maps each inode reachable under root to one of its paths.
func livePaths(root string) map[uint64]string {
	paths := map[uint64]string{}
	filepath.WalkDir(root, func(path string, _ os.DirEntry, err error) error {
		if err == nil {
			if ino, _, statErr := inodeOf(path); statErr == nil {
				if _, seen := paths[ino]; !seen {
					paths[ino] = path
				}
			}
		}
		return nil
	})
	return paths
}

// materialize writes the tree reachable from the image's root into the empty directory
// `target`. A directory named twice (possible when a replayed rename kept its new entry
// but not the removal of the old one) is written once; a file named twice is hard-linked.
func materialize(img *image, target string) error {
	written := map[uint64]string{}
	var write func(dir string, ino uint64) error
	write = func(dir string, ino uint64) error {
		entries := img.dirs[ino]
		for _, name := range sortedKeys(entries) {
			child := entries[name]
			path := filepath.Join(dir, name)
			if img.isDir[child] {
				if _, done := written[child]; done {
					continue
				}
				written[child] = path
				if err := os.Mkdir(path, 0o755); err != nil {
					return err
				}
				if err := write(path, child); err != nil {
					return err
				}
			} else if first, done := written[child]; done {
				if err := os.Link(first, path); err != nil {
					return err
				}
			} else {
				written[child] = path
				if err := os.WriteFile(path, img.data[child], 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return write(target, img.root)
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
