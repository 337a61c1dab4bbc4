#!/bin/sh
# A fake exec credential plugin: each run appends a line to $FAKE_EXEC_DIR/runs,
# and a run that starts while another is running appends one to
# $FAKE_EXEC_DIR/overlaps. It prints a token credential.
dir=$FAKE_EXEC_DIR
mine=
if mkdir "$dir/running" 2>/dev/null; then mine=1; else echo overlap >>"$dir/overlaps"; fi
echo run >>"$dir/runs"
sleep 0.3
if [ -n "$mine" ]; then rmdir "$dir/running"; fi
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"fake"}}'
