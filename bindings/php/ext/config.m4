dnl The respite extension for phpize (`phpize && ./configure && make && make
dnl install`, what PIE runs). It builds from the source tarball that
dnl bindings/php/package.sh makes: the SWIG wrapper respite_wrap.c (made
dnl with the pinned SWIG, so no SWIG is needed here), the hand-written C beside
dnl it (gate_call.c, respite_php.h) and the C core's
dnl include/ and src/ under lib/ (not core/: configure and make delete files
dnl named core). libcurl, jansson, SQLite, hiredis and zlib come from the system.

PHP_ARG_ENABLE([respite],
  [whether to build the respite extension],
  [AS_HELP_STRING([--disable-respite], [Do not build the respite extension])],
  [yes])

dnl RESPITE_REQUIRE(pkg-config name, library, function, header, Debian package):
dnl flags from pkg-config when it knows the library, else -l<library>;
dnl the header must compile and the function link, or configure stops.
AC_DEFUN([RESPITE_REQUIRE], [
  respite_cflags=
  respite_libs="-l$2"
  if test "$PKG_CONFIG" != "no" && $PKG_CONFIG --exists $1; then
    respite_cflags=`$PKG_CONFIG --cflags $1`
    respite_libs=`$PKG_CONFIG --libs $1`
  fi
  respite_saved_cppflags=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $respite_cflags"
  AC_CHECK_HEADER([$4], [],
    [AC_MSG_ERROR([respite needs the $1 headers ($4 not found); on Debian: apt-get install $5])])
  CPPFLAGS=$respite_saved_cppflags
  PHP_CHECK_LIBRARY([$2], [$3], [
    PHP_EVAL_INCLINE([$respite_cflags])
    PHP_EVAL_LIBLINE([$respite_libs], [RESPITE_SHARED_LIBADD])
  ], [
    AC_MSG_ERROR([respite needs the $1 library ($3 in -l$2 did not link); on Debian: apt-get install $5])
  ], [$respite_libs])
])

if test "$PHP_RESPITE" != "no"; then
  AC_PATH_PROG([PKG_CONFIG], [pkg-config], [no])
  RESPITE_REQUIRE([jansson], [jansson], [json_loadb], [jansson.h], [libjansson-dev])
  RESPITE_REQUIRE([sqlite3], [sqlite3], [sqlite3_open_v2], [sqlite3.h], [libsqlite3-dev])
  RESPITE_REQUIRE([libcurl], [curl], [curl_easy_init], [curl/curl.h], [libcurl4-openssl-dev])
  RESPITE_REQUIRE([zlib], [z], [deflateInit2_], [zlib.h], [zlib1g-dev])
  dnl The fleet gate (lib/src/fleet) includes <hiredis.h>: pkg-config's -I names its folder.
  RESPITE_REQUIRE([hiredis], [hiredis], [redisConnectWithTimeout], [hiredis.h], [libhiredis-dev])
  PHP_ADD_LIBRARY([pthread], [1], [RESPITE_SHARED_LIBADD])
  PHP_ADD_LIBRARY([m], [1], [RESPITE_SHARED_LIBADD])
  PHP_SUBST([RESPITE_SHARED_LIBADD])

  respite_srcdir=PHP_EXT_SRCDIR(respite)
  if test ! -f "$respite_srcdir/respite_wrap.c" || test ! -f "$respite_srcdir/gate_call.c" || test ! -d "$respite_srcdir/lib/src"; then
    AC_MSG_ERROR([respite_wrap.c, gate_call.c or lib/ is missing: build from the tarball of bindings/php/package.sh])
  fi
  dnl The SWIG wrapper, the hand-written C beside it (bindings/php/ext/*.c), and
  dnl every core source, as the tarball carries them (the core's CMake globs the same folders).
  respite_sources="respite_wrap.c gate_call.c `cd "$respite_srcdir" && echo lib/src/*.c lib/src/http/*.c lib/src/fleet/*.c`"

  dnl C11 like the core's CMake build; only the core's RESPITE_API symbols
  dnl and PHP's get_module are exported. phpize's -D_GNU_SOURCE is undone:
  dnl the core's files that need it define it themselves. As in the CMake
  dnl build, the core's own calls bind locally (-fno-semantic-interposition).
  respite_codegen=
  AX_CHECK_COMPILE_FLAG([-fno-semantic-interposition], [respite_codegen=-fno-semantic-interposition])
  PHP_NEW_EXTENSION([respite], [$respite_sources], [$ext_shared], [],
    [-std=gnu11 -fvisibility=hidden -U_GNU_SOURCE $respite_codegen])
  PHP_ADD_INCLUDE([$respite_srcdir/lib/include])
  PHP_ADD_BUILD_DIR([$ext_builddir/lib/src $ext_builddir/lib/src/http $ext_builddir/lib/src/fleet])
fi
