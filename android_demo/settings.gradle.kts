// The Android demo of lite-edge: open this folder in Android Studio (see README.md).
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}

dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "lite-edge-android"
include(":lite") // org.liteedge.runtime: the Java Interpreter and its JNI library (NDK + CMake)
include(":ocr") // org.liteedge.ocr: PP-OCR pre- and post-processing in plain Java
include(":app") // org.liteedge.demo: the OCR and benchmark screens
