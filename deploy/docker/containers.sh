# deploy/docker/containers.sh: sourced by scripts/assemble-base-image and scripts/build-images (and
# read by test/deploy/containers.ts) so that buildah and podman use the project's own configuration
# and storage, never /etc/containers or the user's:
# - storage: the vfs driver under .tidemark/containers/storage (no fuse-overlayfs or kernel overlay
#   needed, which most CI containers lack);
# - runtime: runc, with cgroupfs and no default ulimits (crun 1.8 refuses hybrid cgroups, and
#   containers.conf's default nofile/nproc ulimits fail inside an unprivileged container).
# Usage: . deploy/docker/containers.sh   (from the repository root; sets CONTAINERS_CONF and
# CONTAINERS_STORAGE_CONF, writes the files when they are missing or differ).

tidemark_containers_dir="$(pwd)/.tidemark/containers"

tidemark_containers_config() {
  mkdir -p "$tidemark_containers_dir/storage" "$tidemark_containers_dir/run"
  local storage="$tidemark_containers_dir/storage.conf" engine="$tidemark_containers_dir/containers.conf"
  local storage_text engine_text
  storage_text="[storage]
driver = \"vfs\"
graphroot = \"$tidemark_containers_dir/storage\"
runroot = \"$tidemark_containers_dir/run\""
  engine_text='[containers]
default_ulimits = []
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"'
  [ -f "$storage" ] && [ "$(cat "$storage")" = "$storage_text" ] || printf '%s\n' "$storage_text" >"$storage"
  [ -f "$engine" ] && [ "$(cat "$engine")" = "$engine_text" ] || printf '%s\n' "$engine_text" >"$engine"
  export CONTAINERS_STORAGE_CONF="$storage" CONTAINERS_CONF="$engine"
}

# tidemark_containers_check fails loudly, naming what to install, when buildah, podman or runc is missing.
tidemark_containers_check() {
  local tool missing=()
  for tool in buildah podman runc; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'tidemark: %s not installed; the images are built with buildah and run with podman (runc). Run scripts/setup, or: apt-get install -y buildah podman runc uidmap\n' "${missing[*]}" >&2
    return 1
  fi
}

tidemark_containers_config
