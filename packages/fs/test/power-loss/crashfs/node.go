package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose mutations are recorded by the tracker and whose every
// operation fails with EIO once the power is cut.
type node struct {
	fs.LoopbackNode
	t     *tracker
	inode uint64 // in the backing directory (FUSE numbers the root 1)
}

func newRoot(backing string, t *tracker) (fs.InodeEmbedder, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, err
	}
	data := &fs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	data.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, st *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, t: t, inode: st.Ino}
	}
	data.RootNode = data.NewNode(data, nil, "", &st)
	return data.RootNode, nil
}

// backing is the node's path in the backing directory.
func (n *node) backing() string {
	return filepath.Join(n.RootData.Path, n.Path(n.Root()))
}

func (n *node) ino() uint64 { return n.inode }

func inoOf(inode *fs.Inode) uint64 { return inode.Operations().(*node).inode }

func errnoOf(err error) syscall.Errno { return fs.ToErrno(err) }

// --- reads: passed through while powered ---

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.t.powered(); errno != 0 {
		return nil, errno
	}
	return n.LoopbackNode.Lookup(ctx, name, out)
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if errno := n.t.powered(); errno != 0 {
		return errno
	}
	return n.LoopbackNode.Getattr(ctx, f, out)
}

func (n *node) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if errno := n.t.powered(); errno != 0 {
		return nil, errno
	}
	return f.(fs.FileReader).Read(ctx, dest, off)
}

func (n *node) Open(ctx context.Context, flags uint32) (fh fs.FileHandle, fuseFlags uint32, errno syscall.Errno) {
	if flags&syscall.O_TRUNC == 0 {
		if errno := n.t.powered(); errno != 0 {
			return nil, 0, errno
		}
		return wrapFile(n.LoopbackNode.Open(ctx, flags))
	}
	errno = n.t.mutate("open-truncate", func() syscall.Errno {
		fh, fuseFlags, errno = wrapFile(n.LoopbackNode.Open(ctx, flags))
		if errno == 0 {
			n.t.written(n.ino())
		}
		return errno
	})
	return fh, fuseFlags, errno
}

// fileHandle is the loopback's file handle without FUSE passthrough, which would let the
// kernel read and write the backing file directly, unseen by the tracker.
type fileHandle struct{ *fs.LoopbackFile }

func (h *fileHandle) PassthroughFd() (int, bool) { return 0, false }

func wrapFile(fh fs.FileHandle, fuseFlags uint32, errno syscall.Errno) (fs.FileHandle, uint32, syscall.Errno) {
	if errno != 0 {
		return nil, 0, errno
	}
	return &fileHandle{fh.(*fs.LoopbackFile)}, fuseFlags, 0
}

// OpendirHandle wraps the loopback's directory handle, whose own fsyncdir would bypass us.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.t.powered(); errno != 0 {
		return nil, 0, errno
	}
	fh, fuseFlags, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{inner: fh, node: n}, fuseFlags, 0
}

// --- namespace mutations ---

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (inode *fs.Inode, fh fs.FileHandle, fuseFlags uint32, errno syscall.Errno) {
	errno = n.t.mutate("create", func() syscall.Errno {
		path := filepath.Join(n.backing(), name)
		_, _, absent := inodeOf(path)
		inode, fh, fuseFlags, errno = n.LoopbackNode.Create(ctx, name, flags, mode, out)
		if errno != 0 {
			return errno
		}
		fh = &fileHandle{fh.(*fs.LoopbackFile)}
		child := inoOf(inode)
		if absent != nil {
			n.t.created(n.ino(), name, child, false)
		} else if flags&syscall.O_TRUNC != 0 {
			n.t.written(child)
		}
		return 0
	})
	return inode, fh, fuseFlags, errno
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (inode *fs.Inode, errno syscall.Errno) {
	errno = n.t.mutate("mkdir", func() syscall.Errno {
		inode, errno = n.LoopbackNode.Mkdir(ctx, name, mode, out)
		if errno == 0 {
			n.t.created(n.ino(), name, inoOf(inode), true)
		}
		return errno
	})
	return inode, errno
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (inode *fs.Inode, errno syscall.Errno) {
	errno = n.t.mutate("link", func() syscall.Errno {
		inode, errno = n.LoopbackNode.Link(ctx, target, name, out)
		if errno == 0 {
			n.t.linked(n.ino(), name, inoOf(inode))
		}
		return errno
	})
	return inode, errno
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.t.mutate("unlink", func() syscall.Errno {
		errno := n.LoopbackNode.Unlink(ctx, name)
		if errno == 0 {
			n.t.removed(n.ino(), name)
		}
		return errno
	})
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.t.mutate("rmdir", func() syscall.Errno {
		errno := n.LoopbackNode.Rmdir(ctx, name)
		if errno == 0 {
			n.t.removed(n.ino(), name)
		}
		return errno
	})
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if flags != 0 {
		return syscall.ENOTSUP // RENAME_EXCHANGE and friends are not modelled
	}
	return n.t.mutate("rename", func() syscall.Errno {
		child, _, err := inodeOf(filepath.Join(n.backing(), name))
		if err != nil {
			return errnoOf(err)
		}
		errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
		if errno == 0 {
			n.t.renamed(n.ino(), name, inoOf(newParent.EmbeddedInode()), newName, child)
		}
		return errno
	})
}

// Symbolic links and device nodes are outside the model.
func (n *node) Symlink(context.Context, string, string, *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.ENOTSUP
}

func (n *node) Mknod(context.Context, string, uint32, uint32, *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.ENOTSUP
}

// --- file content ---

func (n *node) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (written uint32, errno syscall.Errno) {
	errno = n.t.mutate("write", func() syscall.Errno {
		written, errno = f.(fs.FileWriter).Write(ctx, data, off)
		n.t.written(n.ino())
		return errno
	})
	return written, errno
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if _, truncates := in.GetSize(); !truncates {
		if errno := n.t.powered(); errno != 0 {
			return errno
		}
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	return n.t.mutate("truncate", func() syscall.Errno {
		errno := n.LoopbackNode.Setattr(ctx, f, in, out)
		n.t.written(n.ino())
		return errno
	})
}

// The kernel falls back to plain reads and writes (which are recorded) on ENOSYS.
func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

func (n *node) Allocate(context.Context, fs.FileHandle, uint64, uint64, uint32) syscall.Errno {
	return syscall.ENOTSUP
}

// Fsync (and fdatasync: both make content and size durable) snapshots the file. The backing
// directory is scratch space on tmpfs: its own fsync would change nothing.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	return n.t.mutate("fsync", func() syscall.Errno {
		content, err := n.content(f)
		if err != nil {
			return errnoOf(err)
		}
		n.t.fileSynced(n.ino(), content)
		return 0
	})
}

// content reads the whole file through the open handle when there is one (the file may
// have no name any more, and the handle may be write-only: it is reopened for reading
// through /proc), else by path.
func (n *node) content(f fs.FileHandle) ([]byte, error) {
	if h, ok := f.(*fileHandle); ok {
		if fd, ok := h.LoopbackFile.PassthroughFd(); ok {
			return os.ReadFile(fmt.Sprintf("/proc/self/fd/%d", fd))
		}
	}
	return os.ReadFile(n.backing())
}

func (n *node) fsyncDir() syscall.Errno {
	return n.t.mutate("fsyncdir", func() syscall.Errno {
		entries, err := entriesOf(n.backing())
		if err != nil {
			return errnoOf(err)
		}
		n.t.dirSynced(n.ino(), entries)
		return 0
	})
}

// dirHandle forwards directory reads to the loopback's handle and routes fsyncdir to the
// tracker.
type dirHandle struct {
	inner fs.FileHandle
	node  *node
}

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if errno := d.node.t.powered(); errno != 0 {
		return nil, errno
	}
	return d.inner.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return d.inner.(fs.FileSeekdirer).Seekdir(ctx, off)
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	d.inner.(fs.FileReleasedirer).Releasedir(ctx, flags)
}

func (d *dirHandle) Fsyncdir(context.Context, uint32) syscall.Errno { return d.node.fsyncDir() }
