@testable import ConfigFile
import FuzzSupport
import GestureCore

// The TOML reader and the schema: any text as a configuration file, then what the daemon
// builds from an accepted one (each device entry's settings and a pipeline with its regions).
let devices = [
    DeviceDescription(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010c, properties: [INPUTPROP.direct],
                      codes: [EV.key: [BTN.touch]],
                      absInfo: [ABS.mtSlot: AbsInfo(minimum: 0, maximum: 9), ABS.mtPositionX: AbsInfo(minimum: 0, maximum: 3312, resolution: 10),
                                ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 1872, resolution: 10), ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535)]),
    DeviceDescription(name: "Other", absInfo: [ABS.x: AbsInfo(minimum: 0, maximum: 4095), ABS.y: AbsInfo(minimum: 0, maximum: 4095)]),
]

fuzzMain { input in
    let text = String(decoding: input, as: UTF8.self)
    do throws(ConfigError) {
        let configuration = try ConfigLoader.parse(text: text, path: "fuzz.toml")
        for device in devices {
            let settings = configuration.settings(forDevice: device.name, vendor: device.vendor, product: device.product,
                                                  paths: ["/dev/input/event3", "/dev/input/by-id/usb-ELAN-event-if00"])
            _ = DevicePipeline(device: device, geometry: settings.geometry, configuration: settings.engine)
        }
    } catch {
        requireDisplaySafe(error.description, "configuration error")
    }
}
