#!/bin/sh
# The JUnit 5 classes of junit/, run in parallel by the JUnit console launcher (Debian's junit5 package puts it at the
# path below; with Maven or Gradle they are ordinary test classes, and junit-platform.properties a test resource).
set -e
JAR=${JUNIT_CONSOLE_JAR:-/usr/share/java/junit-platform-console-standalone.jar}
rm -rf build
javac -d build -cp "$JAR" junit/*.java
cp junit/junit-platform.properties build/
java -jar "$JAR" --disable-banner --details=tree -cp build --select-package mfasim
