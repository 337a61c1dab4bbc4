package krew

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// packTestArchive packs a plugin-like archive into dir and returns its path:
// an executable kubectl-informer (.exe in a zip), LICENSE, and doc/README.
func packTestArchive(t *testing.T, dir, name string) string {
	t.Helper()
	src := t.TempDir()
	write := func(file, content string, mode os.FileMode) string {
		p := filepath.Join(src, file)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bin := "kubectl-informer"
	if strings.HasSuffix(name, ".zip") {
		bin += ".exe"
	}
	entries := []Entry{
		{Name: bin, Source: write("bin", "#!/bin/sh\necho hi\n", 0o755), Mode: 0o755},
		{Name: "LICENSE", Source: write("license", "license text\n", 0o644), Mode: 0o644},
		{Name: "doc/README", Source: write("readme", "read me\n", 0o644), Mode: 0o644},
	}
	out := filepath.Join(dir, name)
	if err := Pack(out, entries, time.Unix(1700000000, 0)); err != nil {
		t.Fatalf("Pack(%s) error = %v", name, err)
	}
	return out
}

func TestPackIsReproducible(t *testing.T) {
	for _, name := range []string{"a.tar.gz", "a.zip"} {
		t.Run(name, func(t *testing.T) {
			first := packTestArchive(t, t.TempDir(), name)
			second := packTestArchive(t, t.TempDir(), name)
			sum1, _ := SHA256File(first)
			sum2, _ := SHA256File(second)
			if sum1 != sum2 {
				t.Errorf("packing the same files twice gave sha256 %s and %s, want equal", sum1, sum2)
			}
		})
	}
}

func TestPackExtractRoundTrip(t *testing.T) {
	for _, name := range []string{"a.tar.gz", "a.zip"} {
		t.Run(name, func(t *testing.T) {
			archive := packTestArchive(t, t.TempDir(), name)
			dir := t.TempDir()
			if err := Extract(archive, dir); err != nil {
				t.Fatalf("Extract() error = %v", err)
			}
			bin := "kubectl-informer"
			if strings.HasSuffix(name, ".zip") {
				bin += ".exe"
			}
			for file, want := range map[string]string{bin: "#!/bin/sh\necho hi\n", "LICENSE": "license text\n", "doc/README": "read me\n"} {
				got, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil || string(got) != want {
					t.Errorf("%s = %q, %v, want %q", file, got, err, want)
				}
			}
			if runtime.GOOS != "windows" {
				info, err := os.Stat(filepath.Join(dir, bin))
				if err != nil || info.Mode().Perm()&0o111 == 0 {
					t.Errorf("%s is not executable after extracting: %v, %v", bin, info.Mode(), err)
				}
			}
		})
	}
}

func TestExtractRejectsEscapingEntries(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "evil.tar.gz")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	content := []byte("x")
	if err := tw.WriteHeader(&tar.Header{Name: "../escaped", Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write(content)
	tw.Close()
	gz.Close()
	f.Close()

	dir := filepath.Join(t.TempDir(), "out")
	if err := Extract(archive, dir); err == nil || !strings.Contains(err.Error(), "outside the target directory") {
		t.Errorf("Extract() error = %v, want one about leaving the target directory", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "escaped")); err == nil {
		t.Error("Extract() wrote a file outside the target directory")
	}
}

func TestExtractRejectsOtherFormats(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.tar.gz")
	if err := os.WriteFile(file, []byte("not an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Extract(file, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a gzipped tar or zip archive") {
		t.Errorf("Extract() error = %v, want one saying the format is unknown", err)
	}
}

func TestInstall(t *testing.T) {
	archive := packTestArchive(t, t.TempDir(), "kubectl-informer_v1.2.3_linux_amd64.tar.gz")
	sum, err := SHA256File(archive)
	if err != nil {
		t.Fatal(err)
	}
	plugin := validPlugin()
	tests := []struct {
		name      string
		files     []FileOperation
		bin       string
		sha       string
		wantErr   string
		wantFiles []string
	}{
		{
			name:      "files to .",
			files:     []FileOperation{{From: "kubectl-informer", To: "."}, {From: "LICENSE", To: "."}},
			bin:       "kubectl-informer",
			wantFiles: []string{"kubectl-informer", "LICENSE"},
		},
		{
			name:      "file renamed",
			files:     []FileOperation{{From: "kubectl-informer", To: "bin/plugin"}},
			bin:       "bin/plugin",
			wantFiles: []string{"bin/plugin"},
		},
		{
			name:      "glob into a directory",
			files:     []FileOperation{{From: "*", To: "all"}},
			bin:       "all/kubectl-informer",
			wantFiles: []string{"all/kubectl-informer", "all/LICENSE", "all/doc/README"},
		},
		{
			name:      "directory kept whole",
			files:     []FileOperation{{From: "doc", To: "."}, {From: "kubectl-informer", To: "."}},
			bin:       "kubectl-informer",
			wantFiles: []string{"doc/README", "kubectl-informer"},
		},
		{
			name:    "sha256 mismatch",
			files:   []FileOperation{{From: "kubectl-informer", To: "."}},
			bin:     "kubectl-informer",
			sha:     testSHA,
			wantErr: "the manifest says " + testSHA,
		},
		{
			name:    "nothing matches",
			files:   []FileOperation{{From: "kubectl-informer.exe", To: "."}},
			bin:     "kubectl-informer.exe",
			wantErr: `nothing in the archive matches "kubectl-informer.exe"`,
		},
		{
			name:    "bin not installed",
			files:   []FileOperation{{From: "LICENSE", To: "."}},
			bin:     "kubectl-informer",
			wantErr: "bin kubectl-informer is not among the installed files",
		},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name      string
			files     []FileOperation
			bin       string
			sha       string
			wantErr   string
			wantFiles []string
		}{
			name:    "bin not executable",
			files:   []FileOperation{{From: "LICENSE", To: "."}},
			bin:     "LICENSE",
			wantErr: "bin LICENSE is not executable",
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := Platform{Files: tt.files, Bin: tt.bin, Sha256: sum}
			if tt.sha != "" {
				pl.Sha256 = tt.sha
			}
			root := t.TempDir()
			bin, err := Install(plugin, pl, archive, root)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Install() error = %v, want one containing %q", err, tt.wantErr)
				}
				if _, err := os.Stat(InstallDir(root, "informer", "v1.2.3")); err == nil {
					t.Error("Install() failed but left the installation directory behind")
				}
				return
			}
			if err != nil {
				t.Fatalf("Install() error = %v", err)
			}
			dir := InstallDir(root, "informer", "v1.2.3")
			if want := filepath.Join(dir, filepath.FromSlash(tt.bin)); bin != want {
				t.Errorf("Install() = %q, want %q", bin, want)
			}
			for _, f := range tt.wantFiles {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
					t.Errorf("installed file %s: %v", f, err)
				}
			}
			if _, err := Install(plugin, pl, archive, root); err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Errorf("second Install() error = %v, want one saying it already exists", err)
			}
			link, err := LinkBin(root, "informer", bin)
			if err != nil {
				t.Fatalf("LinkBin() error = %v", err)
			}
			wantLink := filepath.Join(root, "bin", "kubectl-informer")
			if runtime.GOOS == "windows" {
				wantLink += ".exe"
			}
			if link != wantLink {
				t.Errorf("LinkBin() = %q, want %q", link, wantLink)
			}
			if got, err := os.ReadFile(link); err != nil || string(got) != "#!/bin/sh\necho hi\n" {
				t.Errorf("reading through the link = %q, %v", got, err)
			}
		})
	}
}

func TestCheckArchive(t *testing.T) {
	archive := packTestArchive(t, t.TempDir(), "x_windows_amd64.zip")
	sum, _ := SHA256File(archive)
	good := Platform{Sha256: sum, Files: []FileOperation{{From: "kubectl-informer.exe", To: "."}}, Bin: "kubectl-informer.exe"}
	if err := CheckArchive(good, archive); err != nil {
		t.Errorf("CheckArchive() = %v, want nil", err)
	}
	bad := good
	bad.Bin = "kubectl-informer"
	if err := CheckArchive(bad, archive); err == nil {
		t.Error("CheckArchive() with a bin the archive lacks = nil, want an error")
	}
}
