# shellcheck shell=bash
# Sourced by the test, demo and bench drivers. LD_PRELOAD splits its value at spaces and colons, so a build
# directory whose absolute path has one (a clone in "/tmp/with space/x") is reached through a symbolic link
# in a fresh temporary directory instead.
# preloadable_build DIR: sets PRELOAD_BUILD to an absolute path of DIR that LD_PRELOAD can carry, and
# BUILD_LINK_DIR to the temporary directory to remove at exit ("" when no link was needed).
preloadable_build() {
  local abs
  abs=$(realpath -m "$1")
  BUILD_LINK_DIR=
  case $abs in
    *[[:space:]:]*)
      BUILD_LINK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/numabind-build.XXXXXX")
      chmod 755 "$BUILD_LINK_DIR"  # tests start ranks as nobody, who must reach the library through it
      ln -s "$abs" "$BUILD_LINK_DIR/build"
      PRELOAD_BUILD=$BUILD_LINK_DIR/build ;;
    *) PRELOAD_BUILD=$abs ;;
  esac
}
