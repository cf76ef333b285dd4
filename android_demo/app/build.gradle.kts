// org.liteedge.demo: PP-OCRv4 on the .lite runtime (OCR screen) and its benchmark screen.
// The models go into src/main/assets first: `make android-assets` in the repository root.
plugins {
    id("com.android.application")
}

android {
    namespace = "org.liteedge.demo"
    compileSdk = 35

    defaultConfig {
        applicationId = "org.liteedge.demo"
        minSdk = 24
        targetSdk = 35
        versionCode = 1
        versionName = "0.1.0"
        ndk {
            abiFilters += listOf("arm64-v8a", "armeabi-v7a")
        }
    }

    buildTypes {
        release {
            isMinifyEnabled = true
            proguardFiles(getDefaultProguardFile("proguard-android-optimize.txt"))
        }
    }

    androidResources {
        // Stored uncompressed so the models are memory-mapped straight from the APK (no copy).
        noCompress += listOf("lite")
    }

    packaging {
        jniLibs {
            // Uncompressed and 16 KB aligned in the APK: loaded in place on 16 KB-page devices.
            useLegacyPackaging = false
        }
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }
}

dependencies {
    implementation(project(":ocr"))
}
