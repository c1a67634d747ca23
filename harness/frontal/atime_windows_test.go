package frontal

import (
	"io/fs"
	"syscall"
	"time"
)

// accessTime is the time info's file was last read, as NTFS records it
// (when it records reads at all: canaryAccessed's witness tells).
func accessTime(info fs.FileInfo) (time.Time, bool) {
	data, ok := info.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, data.LastAccessTime.Nanoseconds()), true
}
