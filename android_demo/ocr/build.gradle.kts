// org.liteedge.ocr: PP-OCR's pre- and post-processing in plain Java (no Android classes), so the
// whole pipeline is tested on the host JVM (`make android-test`).
plugins {
    id("com.android.library")
}

android {
    namespace = "org.liteedge.ocr"
    compileSdk = 35

    defaultConfig {
        minSdk = 24
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }

    testOptions {
        unitTests.all {
            it.systemProperty("org.liteedge.runtime.library", providers.gradleProperty("liteedge.jni").getOrElse(""))
            it.systemProperty("liteedge.fixtures", providers.gradleProperty("liteedge.fixtures").getOrElse(""))
        }
    }
}

dependencies {
    api(project(":lite"))
    testImplementation("junit:junit:4.13.2")
}
