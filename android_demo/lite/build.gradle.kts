// org.liteedge.runtime: the Java API and liblite_jni.so + liblite_runtime.so, built by the NDK from
// this repository's C/C++ sources (src/main/cpp/CMakeLists.txt adds the repository root).
plugins {
    id("com.android.library")
}

val flatbuffersInclude = providers.gradleProperty("liteedge.flatbuffersInclude").getOrElse("/usr/include")

android {
    namespace = "org.liteedge.runtime"
    compileSdk = 35
    ndkVersion = "27.2.12479018" // r27: 16 KB page alignment by default; the CMake file sets it too

    defaultConfig {
        minSdk = 24
        consumerProguardFiles("consumer-rules.pro")
        ndk {
            abiFilters += listOf("arm64-v8a", "armeabi-v7a")
        }
        externalNativeBuild {
            cmake {
                arguments += listOf(
                    "-DANDROID_STL=c++_static",
                    "-DANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES=ON",
                    "-DFLATBUFFERS_INCLUDE_DIR=$flatbuffersInclude",
                )
                cFlags += listOf("-O2")
                cppFlags += listOf("-O2")
            }
        }
    }

    externalNativeBuild {
        cmake {
            path = file("src/main/cpp/CMakeLists.txt")
            version = "3.22.1"
        }
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }

    testOptions {
        // The JUnit tests need a host build of liblite_jni.so and the fixtures of tests/java_fixtures.py:
        // `make android-test` in the repository root runs them. From Gradle, pass both:
        //   ./gradlew :lite:testDebugUnitTest -Pliteedge.jni=/abs/liblite_jni.so -Pliteedge.fixtures=/abs/dir
        unitTests.all {
            it.systemProperty("org.liteedge.runtime.library", providers.gradleProperty("liteedge.jni").getOrElse(""))
            it.systemProperty("liteedge.fixtures", providers.gradleProperty("liteedge.fixtures").getOrElse(""))
            it.jvmArgs("-Xcheck:jni")
        }
    }
}

dependencies {
    testImplementation("junit:junit:4.13.2")
}
