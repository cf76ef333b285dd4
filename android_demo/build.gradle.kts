// Plugin versions for every module. AGP 8.7 needs Gradle >= 8.9 and JDK 17.
plugins {
    id("com.android.application") version "8.7.3" apply false
    id("com.android.library") version "8.7.3" apply false
}
