// crashfs is a FUSE filesystem for power-loss tests. It passes every operation through to a
// backing directory on tmpfs and records what fsync and fdatasync (files) and directory
// fsyncs (entries) have made durable. When the power is cut (at the Nth mutating operation,
// or on command), every later operation fails with EIO; on "remount" it unmounts, builds
// what a disk would hold after the cut, and mounts that at the same place.
//
// It is driven by one command per line on stdin and answers one line each on stdout:
//
//	arm N             cut the power at the Nth mutating operation from now
//	cut               cut the power now
//	remount MODE SEED unmount, keep the synced state (MODE drop) plus a seeded random
//	                  subset of the unsynced operations (MODE subset), mount it
//	fresh             unmount, mount an empty disk
//	status            the count of mutating operations and where the cut landed
//
// Answers are "ok" followed by a JSON object, or "error" and a message. End of input
// unmounts and exits. Mounting uses the mount syscall directly, so it needs root.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

type controller struct {
	mountpoint string
	workdir    string
	disks      int
	backing    string
	t          *tracker
}

var mounted *controller // for fatalf, so that a fatal error does not leave a dead mount behind

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "crashfs: "+format+"\n", args...)
	if mounted != nil {
		mounted.unmount()
	}
	os.Exit(2)
}

// mount builds a new backing directory holding img (empty when nil) and mounts it.
func (c *controller) mount(img *image) error {
	c.disks++
	c.backing = filepath.Join(c.workdir, fmt.Sprintf("disk-%d", c.disks))
	if err := os.Mkdir(c.backing, 0o755); err != nil {
		return err
	}
	if img != nil {
		if err := materialize(img, c.backing); err != nil {
			return err
		}
	}
	// Read back with the new inode numbers: everything on a freshly mounted disk is durable.
	scanned, err := scanImage(c.backing)
	if err != nil {
		return err
	}
	c.t = newTracker(scanned)
	root, err := newRoot(c.backing, c.t)
	if err != nil {
		return err
	}
	second := time.Second
	_, err = fs.Mount(c.mountpoint, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			DirectMount:       true,
			DirectMountStrict: true,
			FsName:            "crashfs",
			Name:              "crashfs",
			DisableXAttrs:     true,
		},
		EntryTimeout: &second,
		AttrTimeout:  &second,
	})
	if err == nil {
		mounted = c
	}
	return err
}

// unmount detaches the mount at once (a handle the test has not closed yet keeps the old
// connection alive, answering EIO) and drops its backing directory.
func (c *controller) unmount() {
	c.t.cut()
	if err := syscall.Unmount(c.mountpoint, syscall.MNT_DETACH); err != nil {
		fmt.Fprintf(os.Stderr, "crashfs: unmount %s: %v\n", c.mountpoint, err)
	}
	mounted = nil
	os.RemoveAll(c.backing)
}

func (c *controller) remount(mode string, seed int64) (survivorStats, error) {
	c.t.cut()
	var paths map[uint64]string
	live := func(file uint64) ([]byte, bool) {
		if paths == nil {
			paths = livePaths(c.backing)
		}
		path, ok := paths[file]
		if !ok {
			return nil, false
		}
		content, err := os.ReadFile(path)
		return content, err == nil
	}
	img, stats := c.t.survivor(mode, seed, live)
	c.unmount()
	return stats, c.mount(img)
}

func (c *controller) handle(line string) (any, error) {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	switch {
	case words[0] == "arm" && len(words) == 2:
		n, err := strconv.Atoi(words[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("arm takes a positive count")
		}
		c.t.mu.Lock()
		c.t.cutAt = c.t.ops + n
		c.t.mu.Unlock()
		return map[string]int{"cutAt": n}, nil
	case words[0] == "cut" && len(words) == 1:
		return map[string]bool{"cut": c.t.cut()}, nil
	case words[0] == "remount" && len(words) == 3 && (words[1] == "drop" || words[1] == "subset"):
		seed, err := strconv.ParseInt(words[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("remount takes an integer seed")
		}
		return c.remount(words[1], seed)
	case words[0] == "fresh" && len(words) == 1:
		c.unmount()
		return map[string]bool{"fresh": true}, c.mount(nil)
	case words[0] == "status" && len(words) == 1:
		c.t.mu.Lock()
		defer c.t.mu.Unlock()
		return map[string]any{"ops": c.t.ops, "cutOn": c.t.cutOn}, nil
	}
	return nil, fmt.Errorf("unknown command %q", line)
}

func main() {
	mountpoint := flag.String("mountpoint", "", "an empty directory to mount on")
	workdir := flag.String("workdir", "", "an empty directory on tmpfs for the backing trees")
	flag.Parse()
	if *mountpoint == "" || *workdir == "" {
		fmt.Fprintln(os.Stderr, "usage: crashfs -mountpoint DIR -workdir DIR")
		os.Exit(2)
	}
	c := &controller{mountpoint: *mountpoint, workdir: *workdir}
	if err := c.mount(nil); err != nil {
		fatalf("mount %s: %v", *mountpoint, err)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		fatalf("stopped by a signal")
	}()
	fmt.Println(`ok {"ready":true}`)
	input := bufio.NewScanner(os.Stdin)
	for input.Scan() {
		result, err := c.handle(input.Text())
		if err != nil {
			fmt.Printf("error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		encoded, _ := json.Marshal(result)
		fmt.Printf("ok %s\n", encoded)
	}
	c.unmount()
}
