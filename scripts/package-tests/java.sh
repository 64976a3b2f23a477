#!/usr/bin/env bash
# The Java artifact outside this checkout (issue 15 item 8): the jar (with its
# JNI library) and its sources and javadoc jars are built here, copied into an
# empty directory, installed into a fresh local Maven repository with
# install:install-file, and a tiny Maven project there depends on
# org.respite:respite, compiles against it and runs a gate until it refuses.
# Maven's plugins come from ~/.m2 (read as a file repository, so nothing of
# the user's local repository is written) or else Maven Central.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$root/bindings/java/pom.xml" | head -1)"

# The tests run in scripts/test.d/50-java.sh; here only the artifacts.
env -u RESPITE_FAULT_SERVER mvn -B -q -f "$root/bindings/java" package -DskipTests >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/jars" "$work/app"
for kind in "" -sources -javadoc; do
  cp "$root/bindings/java/target/respite-$version$kind.jar" "$work/jars/"
done
cd "$work"
mkdir unpacked
(cd unpacked && jar xf ../jars/respite-$version.jar META-INF/MANIFEST.MF native)
grep -qx 'Automatic-Module-Name: org.respite' <(tr -d '\r' < unpacked/META-INF/MANIFEST.MF) \
  || { echo "package-tests/java: no Automatic-Module-Name: org.respite in the manifest"; exit 1; }
# The JNI library must not look for anything in the build tree.
if readelf -d unpacked/native/*/librespite_jni.so | grep -E 'RPATH|RUNPATH'; then
  echo "package-tests/java: the JNI library has a run path"; exit 1
fi

cat > settings.xml <<XML
<settings>
  <localRepository>$work/m2</localRepository>
  <profiles><profile><id>plugins-from-cache</id>
    <repositories><repository><id>user-cache</id><url>file://$HOME/.m2/repository</url></repository></repositories>
    <pluginRepositories><pluginRepository><id>user-cache</id><url>file://$HOME/.m2/repository</url></pluginRepository></pluginRepositories>
  </profile></profiles>
  <activeProfiles><activeProfile>plugins-from-cache</activeProfile></activeProfiles>
</settings>
XML
mvn=(env -u RESPITE_FAULT_SERVER mvn -B -q -Dstyle.color=never -s "$work/settings.xml")

# How a user installs the jar (its pom is read from inside it).
"${mvn[@]}" org.apache.maven.plugins:maven-install-plugin:3.1.1:install-file -Dfile=jars/respite-$version.jar \
  -Dsources=jars/respite-$version-sources.jar -Djavadoc=jars/respite-$version-javadoc.jar

cat > app/pom.xml <<XML
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>app</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>org.respite</groupId><artifactId>respite</artifactId><version>$version</version></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.12.1</version></plugin>
  </plugins></build>
</project>
XML
mkdir -p app/src/main/java/example
cat > app/src/main/java/example/Main.java <<'JAVA'
package example;

import org.respite.Gate;
import org.respite.Outcome;
import org.respite.TemporarilyUnavailableException;

public final class Main {
    public static void main(String[] args) {
        try (Gate gate = Gate.builder().failuresToEnterRecovery(3).failuresWindowSeconds(60)
                .recoverySeconds(30).build()) {
            for (int i = 0; i < 3; i++) {
                gate.report(gate.acquire(), Outcome.SERVER_ERROR);
            }
            try {
                gate.acquire();
                System.out.println("not refused after 3 failures");
                System.exit(1);
            } catch (TemporarilyUnavailableException refusal) {
                if (!(refusal.getRetryAfter() > 29 && refusal.getRetryAfter() <= 30)) {
                    System.out.println("retry_after " + refusal.getRetryAfter() + ", expected 30");
                    System.exit(1);
                }
                System.out.println("refused, retry_after " + refusal.getRetryAfter() + ": " + refusal.getMessage());
            }
        }
    }
}
JAVA
(cd app && "${mvn[@]}" compile)
# Run with the jar from the fresh local repository only, away from the checkout.
jar="$work/m2/org/respite/respite/$version/respite-$version.jar"
cmp "$jar" "jars/respite-$version.jar"
ls "$work/m2/org/respite/respite/$version/respite-$version-sources.jar" "$work/m2/org/respite/respite/$version/respite-$version-javadoc.jar" >/dev/null
(cd app && env -u RESPITE_FAULT_SERVER java -cp "$jar:target/classes" example.Main)
